package io.github.redisqueue.listener;

import io.github.redisqueue.core.ReservedJob;

/**
 * Called after a listener container dead-lettered a job: attempts used up, a failure marked not
 * retryable, or a payload that could not be read. Also called when a listener in
 * {@link AcknowledgementMode#AT_MOST_ONCE} mode throws: that job was completed before it ran, so
 * it is not in the dead letters, and this call is the only trace of its failure. Define it as a
 * bean to alert, log or copy the job elsewhere; an exception it throws is logged and ignored.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface DeadLetterCallback {

	/**
	 * @param job the job as it was reserved
	 * @param cause the failure that ended it
	 */
	void onDeadLetter(ReservedJob job, Throwable cause);

}
