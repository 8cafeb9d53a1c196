package io.github.redisqueue.core;

/**
 * A reserved job with its payload read as the consumer's type.
 *
 * @param <T> the payload type
 * @param meta the reservation: id, token, attempt, headers, lease
 * @param payload the deserialized payload
 * @since 0.1.0
 */
public record Job<T>(ReservedJob meta, T payload) {

	/** The id and lease token. */
	public JobRef ref() {
		return this.meta.ref();
	}

	/** The job id. */
	public String id() {
		return this.meta.id();
	}

}
