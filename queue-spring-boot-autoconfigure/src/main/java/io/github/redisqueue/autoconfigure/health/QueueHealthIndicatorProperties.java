package io.github.redisqueue.autoconfigure.health;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the {@code queue} health indicator, under {@code queue.health.}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("queue.health")
public class QueueHealthIndicatorProperties {

	/**
	 * Dead letters in one queue above which the health turns to the threshold status; no
	 * threshold when unset.
	 */
	private @Nullable Long maxDead;

	/**
	 * Ready jobs in one queue above which the health turns to the threshold status; no
	 * threshold when unset.
	 */
	private @Nullable Long maxReady;

	/**
	 * How long the next ready job of one queue may have waited before the health turns to
	 * the threshold status; no threshold when unset.
	 */
	private @Nullable Duration maxHeadAge;

	/**
	 * Health status when a threshold is passed.
	 */
	private String thresholdStatus = "OUT_OF_SERVICE";

	/**
	 * Longest wait for Redis's answer; past it the health is DOWN.
	 */
	private Duration timeout = Duration.ofSeconds(2);

	public @Nullable Long getMaxDead() {
		return this.maxDead;
	}

	public void setMaxDead(@Nullable Long maxDead) {
		this.maxDead = maxDead;
	}

	public @Nullable Long getMaxReady() {
		return this.maxReady;
	}

	public void setMaxReady(@Nullable Long maxReady) {
		this.maxReady = maxReady;
	}

	public @Nullable Duration getMaxHeadAge() {
		return this.maxHeadAge;
	}

	public void setMaxHeadAge(@Nullable Duration maxHeadAge) {
		this.maxHeadAge = maxHeadAge;
	}

	public String getThresholdStatus() {
		return this.thresholdStatus;
	}

	public void setThresholdStatus(String thresholdStatus) {
		this.thresholdStatus = thresholdStatus;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

}
