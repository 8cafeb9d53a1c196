package io.github.redisqueue.autoconfigure;

import java.time.Duration;

import io.github.redisqueue.listener.AcknowledgementMode;
import org.jspecify.annotations.Nullable;

/**
 * Settings of listener containers, for all of them ({@code queue.listener}) or for those of
 * one queue ({@code queue.queues.<name>}). A value left unset keeps the one of the level
 * below.
 *
 * @since 0.1.0
 */
public class QueueListenerProperties {

	/**
	 * How many jobs of one listener run at once.
	 */
	private @Nullable Integer concurrency;

	/**
	 * Jobs reserved beyond the concurrency, waiting for a free thread, so that each reserve
	 * call carries more jobs; when unset, it adapts: from the concurrency it grows to as many jobs
	 * as the handlers finish in about two reserve round trips (at most 16 per thread and 256), and
	 * shrinks back as handlers slow down.
	 */
	private @Nullable Integer prefetch;

	/**
	 * Lease of each reserved job; leases of running jobs are extended every third of it.
	 */
	private @Nullable Duration lease;

	/**
	 * Longest blocking wait on an idle queue before the next reserve.
	 */
	private @Nullable Duration pollInterval;

	/**
	 * How long a stopping container waits for running jobs before giving their leases back.
	 */
	private @Nullable Duration shutdownTimeout;

	/**
	 * Attempts after which a failing job is dead-lettered, replacing the job's own (upwards
	 * and downwards) for its failures and the losses of its lease alike; when unset, the
	 * job's own.
	 */
	private @Nullable Integer maxAttempts;

	/**
	 * Exponential back-off between attempts of a failed job.
	 */
	private final Backoff backoff = new Backoff();

	/**
	 * When jobs are acknowledged.
	 */
	private @Nullable AcknowledgementMode ackMode;

	/**
	 * Whether listener containers start with the application.
	 */
	private @Nullable Boolean autoStartup;

	public @Nullable Integer getConcurrency() {
		return this.concurrency;
	}

	public void setConcurrency(@Nullable Integer concurrency) {
		this.concurrency = concurrency;
	}

	public @Nullable Integer getPrefetch() {
		return this.prefetch;
	}

	public void setPrefetch(@Nullable Integer prefetch) {
		this.prefetch = prefetch;
	}

	public @Nullable Duration getLease() {
		return this.lease;
	}

	public void setLease(@Nullable Duration lease) {
		this.lease = lease;
	}

	public @Nullable Duration getPollInterval() {
		return this.pollInterval;
	}

	public void setPollInterval(@Nullable Duration pollInterval) {
		this.pollInterval = pollInterval;
	}

	public @Nullable Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(@Nullable Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

	public @Nullable Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(@Nullable Integer maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public Backoff getBackoff() {
		return this.backoff;
	}

	public @Nullable AcknowledgementMode getAckMode() {
		return this.ackMode;
	}

	public void setAckMode(@Nullable AcknowledgementMode ackMode) {
		this.ackMode = ackMode;
	}

	public @Nullable Boolean getAutoStartup() {
		return this.autoStartup;
	}

	public void setAutoStartup(@Nullable Boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	/** @deprecated since 0.1.0 for removal in 0.2.0 in favour of {@code backoff.initial} */
	@Deprecated(since = "0.1.0", forRemoval = true)
	public void setBackoffInitial(@Nullable Duration initial) {
		QueueProperties.deprecated("queue.queues.<name>.backoff-initial", "queue.queues.<name>.backoff.initial");
		this.backoff.setInitial(initial);
	}

	/** @deprecated since 0.1.0 for removal in 0.2.0 in favour of {@code backoff.multiplier} */
	@Deprecated(since = "0.1.0", forRemoval = true)
	public void setBackoffMultiplier(@Nullable Double multiplier) {
		QueueProperties.deprecated("queue.queues.<name>.backoff-multiplier", "queue.queues.<name>.backoff.multiplier");
		this.backoff.setMultiplier(multiplier);
	}

	/** @deprecated since 0.1.0 for removal in 0.2.0 in favour of {@code backoff.max} */
	@Deprecated(since = "0.1.0", forRemoval = true)
	public void setBackoffMax(@Nullable Duration max) {
		QueueProperties.deprecated("queue.queues.<name>.backoff-max", "queue.queues.<name>.backoff.max");
		this.backoff.setMax(max);
	}

	/**
	 * Exponential back-off between attempts of a failed job; a value left unset keeps the one of
	 * the level below.
	 */
	public static class Backoff {

		/**
		 * Delay before the second attempt.
		 */
		private @Nullable Duration initial;

		/**
		 * Factor between successive delays.
		 */
		private @Nullable Double multiplier;

		/**
		 * Longest delay.
		 */
		private @Nullable Duration max;

		public @Nullable Duration getInitial() {
			return this.initial;
		}

		public void setInitial(@Nullable Duration initial) {
			this.initial = initial;
		}

		public @Nullable Double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(@Nullable Double multiplier) {
			this.multiplier = multiplier;
		}

		public @Nullable Duration getMax() {
			return this.max;
		}

		public void setMax(@Nullable Duration max) {
			this.max = max;
		}

	}

}
