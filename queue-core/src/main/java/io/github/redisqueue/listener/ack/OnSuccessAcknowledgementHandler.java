package io.github.redisqueue.listener.ack;

import io.github.redisqueue.listener.Acknowledgement;
import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.fetch.RunningJob;
import io.github.redisqueue.listener.retry.FailureHandler;

/**
 * {@link AcknowledgementMode#ON_SUCCESS}: a job whose listener returns is completed; one whose
 * listener throws is retried after the back-off, or dead-lettered when its attempts are used up
 * or the failure is fatal.
 */
final class OnSuccessAcknowledgementHandler extends CompletingAcknowledgementHandler {

	private final FailureHandler failures;

	OnSuccessAcknowledgementHandler(String queue, AckBatcher acks, FailureHandler failures) {
		super(queue, acks);
		this.failures = failures;
	}

	@Override
	public void onError(RunningJob job, Acknowledgement acknowledgement, Throwable failure) {
		this.failures.handle(job.job(), failure);
	}

}
