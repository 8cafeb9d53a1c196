package io.github.redisqueue.support.micrometer;

import java.util.Map;

import io.micrometer.observation.transport.ReceiverContext;

/**
 * Observation context of one listener invocation. The job's headers are the carrier, so a
 * tracer continues the trace whose context was put in the headers at enqueue.
 *
 * @since 0.1.0
 */
public class QueueListenerContext extends ReceiverContext<Map<String, String>> {

	private final String queue;

	private final String jobId;

	private final String listenerId;

	/**
	 * @param queue the queue the job came from
	 * @param jobId the job's id
	 * @param headers the job's headers, the carrier of the trace context
	 * @param listenerId the listener (container) id
	 */
	public QueueListenerContext(String queue, String jobId, Map<String, String> headers, String listenerId) {
		super((carrier, key) -> carrier.get(key));
		setCarrier(headers);
		setRemoteServiceName("redis-queue");
		this.queue = queue;
		this.jobId = jobId;
		this.listenerId = listenerId;
	}

	/** The queue the job came from. */
	public String getQueue() {
		return this.queue;
	}

	/** The job's id. */
	public String getJobId() {
		return this.jobId;
	}

	/** The listener (container) id. */
	public String getListenerId() {
		return this.listenerId;
	}

}
