package io.github.redisqueue.actuate.endpoint;

import java.time.Instant;
import java.util.Map;

import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.JobState;
import org.jspecify.annotations.Nullable;

/**
 * One job as the {@code queues} endpoint shows it.
 *
 * @param id the job id
 * @param state where it is
 * @param priority its priority
 * @param attempts attempts used so far (runs that ended in a failure)
 * @param maxAttempts attempts permitted
 * @param progress the progress its handler last reported, as stored (JSON text with the default
 * serializer), or {@code null} when none was reported or the job completed
 * @param enqueuedAt when it was enqueued
 * @param dueAt when it falls due, for a delayed job
 * @param leaseUntil the current or last lease deadline
 * @param worker the lease holder, while it runs
 * @param lastError the last error recorded
 * @param finishedAt when it completed or died
 * @param headers its headers
 * @param payload the payload as text
 * @since 0.1.0
 */
public record JobDescriptor(String id, JobState state, int priority, int attempts, int maxAttempts,
		@Nullable String progress, Instant enqueuedAt, @Nullable Instant dueAt, @Nullable Instant leaseUntil,
		@Nullable String worker, @Nullable String lastError, @Nullable Instant finishedAt, Map<String, String> headers,
		String payload) {

	static JobDescriptor of(JobInfo job) {
		return new JobDescriptor(job.id(), job.state(), job.priority(), job.attempts(), job.maxAttempts(),
				job.progress(), job.enqueuedAt(), job.dueAt(), job.leaseUntil(), job.worker(), job.lastError(),
				job.finishedAt(), job.headers(), job.payloadAsString());
	}

}
