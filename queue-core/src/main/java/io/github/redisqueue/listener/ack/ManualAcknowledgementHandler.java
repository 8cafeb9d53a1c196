package io.github.redisqueue.listener.ack;

import io.github.redisqueue.listener.Acknowledgement;
import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.fetch.RunningJob;
import io.github.redisqueue.listener.retry.FailureHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link AcknowledgementMode#MANUAL}: the listener settles its job through its
 * {@link Acknowledgement}. A job it leaves unsettled when it returns is no longer extended and
 * runs again when its lease runs out; one it leaves unsettled when it throws is handled as in
 * {@link AcknowledgementMode#ON_SUCCESS} (retry or dead letter). What it settled itself is left
 * as it is.
 */
final class ManualAcknowledgementHandler implements AcknowledgementHandler {

	private static final Logger logger = LoggerFactory.getLogger(ManualAcknowledgementHandler.class);

	private final String queue;

	private final FailureHandler failures;

	ManualAcknowledgementHandler(String queue, FailureHandler failures) {
		this.queue = queue;
		this.failures = failures;
	}

	@Override
	public void onSuccess(RunningJob job, Acknowledgement acknowledgement) {
		if (!acknowledgement.isSettled()
				&& CompletingAcknowledgementHandler.stopExtendingAfterReturn(job, this.queue)) {
			logger.warn("Listener of queue '{}' returned without settling job {}; it runs again when its lease ends",
					this.queue, job.job().id());
		}
	}

	@Override
	public void onError(RunningJob job, Acknowledgement acknowledgement, Throwable failure) {
		if (!acknowledgement.isSettled()) {
			this.failures.handle(job.job(), failure);
		}
	}

}
