package io.github.redisqueue.listener.ack;

import io.github.redisqueue.listener.Acknowledgement;
import io.github.redisqueue.listener.fetch.RunningJob;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Base of the modes that complete a job, in the next batch, once its listener returned.
 */
abstract class CompletingAcknowledgementHandler implements AcknowledgementHandler {

	private static final Logger logger = LoggerFactory.getLogger(CompletingAcknowledgementHandler.class);

	final String queue;

	private final AckBatcher acks;

	CompletingAcknowledgementHandler(String queue, AckBatcher acks) {
		this.queue = queue;
		this.acks = acks;
	}

	@Override
	public final void onSuccess(RunningJob job, Acknowledgement acknowledgement) {
		if (stopExtendingAfterReturn(job, this.queue)) {
			complete(job);
		}
	}

	/** Complete a job with the next batch. */
	final void complete(RunningJob job) {
		this.acks.complete(job.job().ref());
	}

	/**
	 * Stop extending the lease of a job whose listener returned.
	 * @return whether the lease was still held; when it was lost, the result must not be
	 * acknowledged (someone else may hold the job now)
	 */
	static boolean stopExtendingAfterReturn(RunningJob job, String queue) {
		// one step: either the lease was lost before, or no interrupt can reach this thread now
		if (job.stopExtending()) {
			return true;
		}
		logger.warn("Job {} of queue '{}' finished after its lease was lost; not acknowledged", job.job().id(), queue);
		return false;
	}

}
