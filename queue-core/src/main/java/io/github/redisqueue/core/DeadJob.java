package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

/**
 * A job in the dead letters.
 *
 * @param id the job id
 * @param payload the serialized payload
 * @param headers the job's headers
 * @param attempts the attempts it used
 * @param error why it died: the last error, "expired", or the lease expiry
 * @param diedAt when it was dead-lettered (Redis server clock)
 * @since 0.1.0
 */
public record DeadJob(String id, byte[] payload, Map<String, String> headers, int attempts, String error,
		Instant diedAt) {

	/** The payload as UTF-8 text. */
	public String payloadAsString() {
		return new String(this.payload, StandardCharsets.UTF_8);
	}

}
