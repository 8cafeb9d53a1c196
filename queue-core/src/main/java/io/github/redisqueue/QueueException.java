package io.github.redisqueue;

/**
 * Base class of the runtime exceptions thrown by redis-queue.
 *
 * @since 0.1.0
 */
public class QueueException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * @param message what went wrong
	 */
	public QueueException(String message) {
		super(message);
	}

	/**
	 * @param message what went wrong
	 * @param cause the failure underneath
	 */
	public QueueException(String message, Throwable cause) {
		super(message, cause);
	}

}
