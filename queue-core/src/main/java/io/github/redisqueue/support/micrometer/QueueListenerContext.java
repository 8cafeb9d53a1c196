package io.github.redisqueue.support.micrometer;

import io.github.redisqueue.core.ReservedJob;
import io.micrometer.observation.transport.ReceiverContext;

/**
 * Observation context of one listener invocation. The job's headers are the carrier, so a
 * tracer continues the trace whose context was put in the headers at enqueue.
 *
 * @since 0.1.0
 */
public class QueueListenerContext extends ReceiverContext<ReservedJob> {

	private final String listenerId;

	public QueueListenerContext(ReservedJob job, String listenerId) {
		super((carrier, key) -> carrier.headers().get(key));
		setCarrier(job);
		setRemoteServiceName("redis-queue");
		this.listenerId = listenerId;
	}

	/** The job. */
	public ReservedJob getJob() {
		ReservedJob job = getCarrier();
		if (job == null) {
			throw new IllegalStateException("No job in the observation context");
		}
		return job;
	}

	/** The listener (container) id. */
	public String getListenerId() {
		return this.listenerId;
	}

}
