package io.github.redisqueue.support;

import java.time.Instant;
import java.util.Map;

/**
 * What a listener method may learn about its job by declaring a parameter of this type.
 *
 * @param queue the queue name
 * @param id the job id
 * @param attempt this attempt's number, from 1
 * @param maxAttempts the attempts the job may use
 * @param enqueuedAt when the job was enqueued (Redis server clock)
 * @param leaseUntil when the current lease ends unless extended
 * @param priority the job's priority
 * @param headers the job's string headers
 * @since 0.1.0
 */
public record JobMetadata(String queue, String id, int attempt, int maxAttempts, Instant enqueuedAt,
		Instant leaseUntil, int priority, Map<String, String> headers) {

}
