package io.github.redisqueue.actuate.endpoint;

import java.time.Instant;

import io.github.redisqueue.core.DeadJob;

/**
 * A dead letter as the {@code queues} endpoint shows it.
 *
 * @param id the job id
 * @param payload the payload as text
 * @param attempts attempts used
 * @param error why it died
 * @param diedAt when
 * @since 0.1.0
 */
public record DeadJobDescriptor(String id, String payload, int attempts, String error, Instant diedAt) {

	static DeadJobDescriptor of(DeadJob job) {
		return new DeadJobDescriptor(job.id(), job.payloadAsString(), job.attempts(), job.error(), job.diedAt());
	}

}
