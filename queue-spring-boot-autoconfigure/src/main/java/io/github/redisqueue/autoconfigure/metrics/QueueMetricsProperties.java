package io.github.redisqueue.autoconfigure.metrics;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the queue gauges, under {@code queue.metrics.}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("queue.metrics")
public class QueueMetricsProperties {

	/**
	 * Time between reads of the queue counts behind the gauges (one round trip for all queues).
	 */
	private Duration refreshInterval = Duration.ofSeconds(10);

	public Duration getRefreshInterval() {
		return this.refreshInterval;
	}

	public void setRefreshInterval(Duration refreshInterval) {
		this.refreshInterval = refreshInterval;
	}

}
