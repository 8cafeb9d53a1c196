package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

/**
 * A job handed out under a lease. Its {@link #ref()} (id and token) is needed to complete,
 * fail, extend or release it.
 *
 * @param queue the queue name
 * @param id the job id
 * @param payload the serialized payload, as stored
 * @param headers the job's string headers
 * @param attempt the number of this attempt, starting at 1
 * @param maxAttempts the attempts the job may use before it is dead-lettered
 * @param token the fencing token of this lease
 * @param leaseUntil the lease deadline, by the Redis server clock
 * @param enqueuedAt when the job was enqueued, by the Redis server clock
 * @param priority the job's priority
 * @since 0.1.0
 */
public record ReservedJob(String queue, String id, byte[] payload, Map<String, String> headers, int attempt,
		int maxAttempts, long token, Instant leaseUntil, Instant enqueuedAt, int priority) {

	/** The id and lease token, as the acknowledgement operations take them. */
	public JobRef ref() {
		return new JobRef(this.id, this.token);
	}

	/** The payload as UTF-8 text. */
	public String payloadAsString() {
		return new String(this.payload, StandardCharsets.UTF_8);
	}

	/** Whether this is the job's last permitted attempt. */
	public boolean isLastAttempt() {
		return this.attempt >= this.maxAttempts;
	}

	@Override
	public String toString() {
		return "ReservedJob[queue=" + this.queue + ", id=" + this.id + ", attempt=" + this.attempt + "/"
				+ this.maxAttempts + ", token=" + this.token + ", leaseUntil=" + this.leaseUntil + "]";
	}

}
