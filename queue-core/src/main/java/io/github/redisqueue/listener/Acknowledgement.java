package io.github.redisqueue.listener;

import java.time.Duration;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.ExtendResult;
import io.github.redisqueue.core.FailResult;
import org.jspecify.annotations.Nullable;

/**
 * Handle a listener in {@link AcknowledgementMode#MANUAL} mode declares as an argument to settle
 * its job itself; in the other modes the container settles the job, and the handle serves to
 * {@link #extend} the lease of a long job and to report its {@link #progress}. Each call is
 * checked against the job's lease token, so a handle whose lease was lost cannot touch a job
 * handed to someone else.
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

	/**
	 * Record how far the job has come, for operators to see while it runs (the job's
	 * {@code progress}, in {@link io.github.redisqueue.core.QueueAdminOperations#job}, the
	 * {@code queues} endpoint and the dashboard); cleared when the job completes. Works in every
	 * acknowledgement mode, checked against the lease token like the other calls, but in
	 * {@link AcknowledgementMode#AT_MOST_ONCE} mode the job is completed before the handler runs,
	 * so nothing is recorded. See {@link io.github.redisqueue.core.QueueOperations#progress}.
	 * @param progress a number or a small object, serialized like payloads (at most
	 * {@link io.github.redisqueue.core.QueueOperations#MAX_PROGRESS_SIZE} bytes), or {@code null}
	 * to clear it
	 * @return whether it was written: {@code false} once this handle's lease is lost
	 * @throws IllegalArgumentException when the serialized progress is too large
	 * @since 0.1.0
	 */
	boolean progress(@Nullable Object progress);

	/** Give the job back to the queue without counting the attempt. */
	AckResult release();

	/** Whether the job has been settled through this handle. */
	boolean isSettled();

}
