package io.github.redisqueue.listener;

import java.time.Duration;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.ExtendResult;
import io.github.redisqueue.core.FailResult;

/**
 * Handle a listener in {@link AcknowledgementMode#MANUAL} mode declares as an argument to settle
 * its job itself. Each call is checked against the job's lease token, so a handle whose lease
 * was lost cannot touch a job handed to someone else.
 *
 * @since 0.1.0
 */
public interface Acknowledgement {

	/** Complete the job. */
	AckResult complete();

	/**
	 * Record a failure and retry after the listener's back-off, or dead-letter the job when its
	 * attempts are used up.
	 * @param error the error text kept with the job
	 */
	FailResult retry(String error);

	/**
	 * Dead-letter the job now.
	 * @param error the reason kept with the job
	 */
	FailResult deadLetter(String error);

	/**
	 * Extend the lease to {@code lease} from now.
	 * @param lease the new lease length
	 */
	ExtendResult extend(Duration lease);

	/** Give the job back to the queue without counting the attempt. */
	AckResult release();

	/** Whether the job has been settled through this handle. */
	boolean isSettled();

}
