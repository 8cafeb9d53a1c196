package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One job as stored, for inspection.
 *
 * @param queue the queue name
 * @param id the job id
 * @param state where the job is
 * @param payload the serialized payload
 * @param headers the job's headers
 * @param priority its priority
 * @param attempts attempts used so far
 * @param maxAttempts attempts permitted
 * @param enqueuedAt when it was enqueued
 * @param dueAt when it falls due, for a delayed job
 * @param expireAt when it expires if not started, if it has an expiry
 * @param leaseUntil the current or last lease deadline
 * @param worker the worker holding its lease, when active
 * @param lastError the last error recorded
 * @param finishedAt when it completed or died
 * @param progress the progress its handler last reported, as stored (serialized like payloads:
 * JSON text with the default serializer); {@code null} when none was reported, once it completed,
 * and after a retry from the dead letters (see {@link QueueOperations#progress})
 * @since 0.1.0
 */
public record JobInfo(String queue, String id, JobState state, byte[] payload, Map<String, String> headers,
		int priority, int attempts, int maxAttempts, Instant enqueuedAt, @Nullable Instant dueAt,
		@Nullable Instant expireAt, @Nullable Instant leaseUntil, @Nullable String worker,
		@Nullable String lastError, @Nullable Instant finishedAt, @Nullable String progress) {

	/**
	 * A job without progress.
	 * @param queue the queue name
	 * @param id the job id
	 * @param state where the job is
	 * @param payload the serialized payload
	 * @param headers the job's headers
	 * @param priority its priority
	 * @param attempts attempts used so far
	 * @param maxAttempts attempts permitted
	 * @param enqueuedAt when it was enqueued
	 * @param dueAt when it falls due, for a delayed job
	 * @param expireAt when it expires if not started, if it has an expiry
	 * @param leaseUntil the current or last lease deadline
	 * @param worker the worker holding its lease, when active
	 * @param lastError the last error recorded
	 * @param finishedAt when it completed or died
	 */
	public JobInfo(String queue, String id, JobState state, byte[] payload, Map<String, String> headers,
			int priority, int attempts, int maxAttempts, Instant enqueuedAt, @Nullable Instant dueAt,
			@Nullable Instant expireAt, @Nullable Instant leaseUntil, @Nullable String worker,
			@Nullable String lastError, @Nullable Instant finishedAt) {
		this(queue, id, state, payload, headers, priority, attempts, maxAttempts, enqueuedAt, dueAt, expireAt,
				leaseUntil, worker, lastError, finishedAt, null);
	}

	/** The payload as UTF-8 text. */
	public String payloadAsString() {
		return new String(this.payload, StandardCharsets.UTF_8);
	}

}
