package io.github.redisqueue.listener;

import io.github.redisqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

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

	/**
	 * Handle one job and give the result to store for it (readable by job id, and by batch for
	 * the sub-jobs of a batch). By default calls {@link #onJob} and gives none.
	 * @param job the job with its raw payload
	 * @param acknowledgement the handle to settle the job by hand ({@link AcknowledgementMode#MANUAL})
	 * @return the result, or {@code null} for none
	 * @throws Exception any failure
	 */
	default @Nullable Object onJobWithResult(ReservedJob job, Acknowledgement acknowledgement) throws Exception {
		onJob(job, acknowledgement);
		return null;
	}

}
