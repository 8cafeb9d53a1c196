package io.github.redisqueue.listener.ack;

import io.github.redisqueue.core.QueueOperations;
import io.github.redisqueue.listener.Acknowledgement;
import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.fetch.RunningJob;
import io.github.redisqueue.listener.retry.FailureHandler;

/**
 * What a container does with a job around its listener call: one implementation per
 * {@link AcknowledgementMode}, chosen once when the container starts. Every method runs on the
 * job's handler thread.
 */
public interface AcknowledgementHandler {

	/**
	 * Called before the listener runs.
	 * @param job the job
	 * @return whether the listener may run it
	 */
	default boolean beforeInvoke(RunningJob job) {
		return true;
	}

	/**
	 * Called after the listener returned normally.
	 * @param job the job
	 * @param acknowledgement the handle the listener was given
	 */
	void onSuccess(RunningJob job, Acknowledgement acknowledgement);

	/**
	 * Called after the listener threw, only while the job's lease is still held; the lease is no
	 * longer extended.
	 * @param job the job
	 * @param acknowledgement the handle the listener was given
	 * @param failure what the listener threw
	 */
	void onError(RunningJob job, Acknowledgement acknowledgement, Throwable failure);

	/**
	 * The handler of a mode.
	 * @param mode the container's acknowledgement mode
	 * @param queue the queue name
	 * @param operations the engine
	 * @param acks the container's batched completions
	 * @param failures decides what a failed job becomes
	 * @return the handler
	 */
	static AcknowledgementHandler of(AcknowledgementMode mode, String queue, QueueOperations operations,
			AckBatcher acks, FailureHandler failures) {
		return switch (mode) {
			case ON_SUCCESS -> new OnSuccessAcknowledgementHandler(queue, acks, failures);
			case ALWAYS -> new AlwaysAcknowledgementHandler(queue, acks);
			case MANUAL -> new ManualAcknowledgementHandler(queue, failures);
			case AT_MOST_ONCE -> new AtMostOnceAcknowledgementHandler(queue, operations, failures);
		};
	}

}
