package io.github.redisqueue.listener.ack;

import io.github.redisqueue.listener.Acknowledgement;
import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.fetch.RunningJob;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link AcknowledgementMode#ALWAYS}: a job is completed whether its listener returns or throws;
 * a failure is logged and counts for nothing.
 */
final class AlwaysAcknowledgementHandler extends CompletingAcknowledgementHandler {

	private static final Logger logger = LoggerFactory.getLogger(AlwaysAcknowledgementHandler.class);

	AlwaysAcknowledgementHandler(String queue, AckBatcher acks) {
		super(queue, acks);
	}

	@Override
	public void onError(RunningJob job, Acknowledgement acknowledgement, Throwable failure) {
		logger.error("Listener of queue '{}' failed on job {}; completing it anyway (mode ALWAYS)", this.queue,
				job.job().id(), failure);
		complete(job);
	}

}
