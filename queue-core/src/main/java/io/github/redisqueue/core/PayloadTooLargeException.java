package io.github.redisqueue.core;

import io.github.redisqueue.QueueException;

/**
 * Thrown at enqueue when a serialized payload is larger than the configured maximum. Nothing is
 * written to Redis for the batch that contained it.
 *
 * @since 0.1.0
 */
public class PayloadTooLargeException extends QueueException {

	private static final long serialVersionUID = 1L;

	private final int size;

	private final int limit;

	/**
	 * @param queue the queue the payload was meant for
	 * @param size the serialized size, in bytes
	 * @param limit the configured maximum, in bytes
	 */
	public PayloadTooLargeException(String queue, int size, int limit) {
		super("Payload for queue '" + queue + "' is " + size + " bytes once serialized, over the limit of "
				+ limit + " bytes (QueueSettings maxPayloadBytes; queue.max-payload-size with Spring Boot)");
		this.size = size;
		this.limit = limit;
	}

	/** Serialized size of the refused payload, in bytes. */
	public int getSize() {
		return this.size;
	}

	/** Configured maximum, in bytes. */
	public int getLimit() {
		return this.limit;
	}

}
