package io.github.redisqueue.listener;

import io.github.redisqueue.core.ReservedJob;

/**
 * The lowest-level listener a container calls for each reserved job. {@code @QueueListener}
 * methods are adapted to it; applications may also implement it directly.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface JobListener {

	/**
	 * Handle one job. Returning normally means success, throwing means failure; what follows
	 * depends on the container's {@link AcknowledgementMode}.
	 * @param job the job with its raw payload
	 * @param acknowledgement the handle to settle the job by hand ({@link AcknowledgementMode#MANUAL})
	 * @throws Exception any failure
	 */
	void onJob(ReservedJob job, Acknowledgement acknowledgement) throws Exception;

}
