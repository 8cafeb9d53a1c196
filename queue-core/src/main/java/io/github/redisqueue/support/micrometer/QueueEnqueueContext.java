package io.github.redisqueue.support.micrometer;

import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.observation.transport.SenderContext;

/**
 * Observation context of one enqueue call (one job or a batch). Its carrier is the map of
 * headers the jobs will be stored with, so a tracer writes the current trace context there and
 * the listener that runs the job continues the same trace.
 *
 * @since 0.1.0
 */
public class QueueEnqueueContext extends SenderContext<Map<String, String>> {

	private final String queue;

	private final int jobCount;

	/**
	 * A context.
	 * @param queue the queue name
	 * @param jobCount how many jobs the call enqueues
	 * @param headers the headers given with the jobs (copied; the copy is the carrier)
	 */
	public QueueEnqueueContext(String queue, int jobCount, Map<String, String> headers) {
		super((carrier, key, value) -> {
			if (carrier != null) {
				carrier.put(key, value);
			}
		});
		setCarrier(new LinkedHashMap<>(headers));
		setRemoteServiceName("redis-queue");
		this.queue = queue;
		this.jobCount = jobCount;
	}

	/** The queue name. */
	public String getQueue() {
		return this.queue;
	}

	/** How many jobs the call enqueues. */
	public int getJobCount() {
		return this.jobCount;
	}

	/** The headers to store with the jobs, including what a tracer has written. */
	public Map<String, String> getHeaders() {
		Map<String, String> headers = getCarrier();
		return (headers != null) ? headers : Map.of();
	}

}
