package io.github.redisqueue.listener.ack;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.QueueOperations;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.Acknowledgement;
import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.fetch.RunningJob;
import io.github.redisqueue.listener.retry.FailureHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link AcknowledgementMode#AT_MOST_ONCE}: a job is completed before its listener runs, and the
 * listener runs only when Redis accepted that completion: a refused one means the job was handed
 * to someone else since (or is gone), and an unanswered one may or may not have been recorded.
 * A listener that throws is logged and reported to the dead-letter callback; the job is not
 * retried.
 */
final class AtMostOnceAcknowledgementHandler implements AcknowledgementHandler {

	private static final Logger logger = LoggerFactory.getLogger(AtMostOnceAcknowledgementHandler.class);

	private final String queue;

	private final QueueOperations operations;

	private final FailureHandler failures;

	AtMostOnceAcknowledgementHandler(String queue, QueueOperations operations, FailureHandler failures) {
		this.queue = queue;
		this.operations = operations;
		this.failures = failures;
	}

	@Override
	public boolean beforeInvoke(RunningJob running) {
		ReservedJob job = running.job();
		if (!running.stopExtending()) {
			logger.warn("Job {} of queue '{}' not run (mode AT_MOST_ONCE): its lease was lost before it started",
					job.id(), this.queue);
			return false;
		}
		AckResult result;
		try {
			result = this.operations.complete(this.queue, job.ref());
		}
		catch (RuntimeException ex) {
			logger.warn("Job {} of queue '{}' not run (mode AT_MOST_ONCE): its completion before the start failed; "
					+ "it is delivered again if the completion was not recorded", job.id(), this.queue, ex);
			return false;
		}
		if (result != AckResult.OK) {
			logger.warn("Job {} of queue '{}' not run (mode AT_MOST_ONCE): its completion before the start was refused "
					+ "({}): {}", job.id(), this.queue, result, (result == AckResult.STALE_TOKEN)
							? "its lease ran out and someone else reserved it since" : "the job no longer exists");
			return false;
		}
		return true;
	}

	@Override
	public void onSuccess(RunningJob job, Acknowledgement acknowledgement) {
		// completed before the listener ran
	}

	@Override
	public void onError(RunningJob job, Acknowledgement acknowledgement, Throwable failure) {
		logger.error("Listener of queue '{}' failed on job {}; not retried (mode AT_MOST_ONCE)", this.queue,
				job.job().id(), failure);
		this.failures.deadLettered(job.job(), failure);
	}

}
