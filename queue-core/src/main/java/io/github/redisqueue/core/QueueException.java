package io.github.redisqueue.core;

/**
 * Base class of the runtime exceptions thrown by redis-queue.
 *
 * @since 0.1.0
 */
public class QueueException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	public QueueException(String message) {
		super(message);
	}

	public QueueException(String message, Throwable cause) {
		super(message, cause);
	}

}
