package io.github.redisqueue.core;

import io.github.redisqueue.QueueException;

/**
 * A batch operation that cannot be done: no such batch, or the batch is not in a state that
 * allows it (adding to a sealed batch, say). Nothing was written by the refused call.
 *
 * @since 0.1.0
 */
public class QueueBatchException extends QueueException {

	private static final long serialVersionUID = 1L;

	/**
	 * An exception with the given message.
	 * @param message what was refused and why
	 */
	public QueueBatchException(String message) {
		super(message);
	}

	public static QueueBatchException missing(String queue, String id) {
		return new QueueBatchException("Queue '" + queue + "' has no batch '" + id
				+ "': it was never opened, or it finished longer ago than its retention");
	}

}
