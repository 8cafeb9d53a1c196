package io.github.redisqueue.support.converter;

import io.github.redisqueue.QueueException;

/**
 * A payload could not be written, or could not be read as the consumer's type. A job whose
 * payload cannot be read is dead-lettered with this exception's message; it is never retried.
 *
 * @since 0.1.0
 */
public class JobConversionException extends QueueException {

	private static final long serialVersionUID = 1L;

	public JobConversionException(String message, Throwable cause) {
		super(message, cause);
	}

}
