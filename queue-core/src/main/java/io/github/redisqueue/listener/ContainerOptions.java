package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueTemplate;
import org.jspecify.annotations.Nullable;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Immutable settings of one listener container. Start from {@link #defaults()} or
 * {@link #builder()}, and derive changed options with {@link #toBuilder()}:
 *
 * <pre class="code">
 * ContainerOptions options = ContainerOptions.builder()
 *         .concurrency(4)
 *         .lease(Duration.ofMinutes(2))
 *         .backOffInitial(Duration.ofSeconds(5))
 *         .build();
 * </pre>
 *
 * {@link Builder#build()} refuses values the engine cannot honour, naming the value and the
 * allowed range: concurrency 1 to 1,000, prefetch 0 to 10,000 and concurrency + prefetch at most
 * {@link QueueTemplate#MAX_RESERVE} (one reserve call takes that many), a lease from 100 ms to
 * {@link QueueTemplate#MAX_LEASE}, a poll interval from 10 ms to 30 s, max attempts from 1 to
 * {@link JobOptions#MAX_ATTEMPTS_LIMIT}, a back-off multiplier of at least 1.
 *
 * @since 0.1.0
 */
public final class ContainerOptions {

	/** Default concurrency. */
	public static final int DEFAULT_CONCURRENCY = 1;

	/** Default lease. */
	public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

	/** Default poll interval. */
	public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);

	/** Default shutdown timeout, under Spring's 30 s per shutdown phase. */
	public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);

	/** Default first back-off. */
	public static final Duration DEFAULT_BACKOFF_INITIAL = Duration.ofSeconds(1);

	/** Default back-off multiplier. */
	public static final double DEFAULT_BACKOFF_MULTIPLIER = 2.0;

	/** Default longest back-off. */
	public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofMinutes(5);

	/** Default acknowledgement mode. */
	public static final AcknowledgementMode DEFAULT_ACKNOWLEDGEMENT_MODE = AcknowledgementMode.ON_SUCCESS;

	/** Shortest lease a container accepts. */
	public static final Duration MIN_LEASE = Duration.ofMillis(100);

	/** Most jobs a container runs at once. */
	public static final int MAX_CONCURRENCY = 1000;

	/** Shortest poll interval a container accepts. */
	public static final Duration MIN_POLL_INTERVAL = Duration.ofMillis(10);

	/** Longest poll interval a container accepts. */
	public static final Duration MAX_POLL_INTERVAL = Duration.ofSeconds(30);

	private static final ContainerOptions DEFAULTS = new Builder().build();

	private final int concurrency;

	private final Duration lease;

	private final Duration pollInterval;

	private final Duration shutdownTimeout;

	private final @Nullable Integer maxAttempts;

	private final Duration backOffInitial;

	private final double backOffMultiplier;

	private final Duration backOffMax;

	private final List<Class<? extends Throwable>> notRetryable;

	private final AcknowledgementMode acknowledgementMode;

	private final boolean autoStartup;

	private final @Nullable Integer prefetch;

	private ContainerOptions(Builder builder) {
		this.concurrency = builder.concurrency;
		this.lease = builder.lease;
		this.pollInterval = builder.pollInterval;
		this.shutdownTimeout = builder.shutdownTimeout;
		this.maxAttempts = builder.maxAttempts;
		this.backOffInitial = builder.backOffInitial;
		this.backOffMultiplier = builder.backOffMultiplier;
		this.backOffMax = builder.backOffMax;
		this.notRetryable = builder.notRetryable;
		this.acknowledgementMode = builder.acknowledgementMode;
		this.autoStartup = builder.autoStartup;
		this.prefetch = builder.prefetch;
	}

	/**
	 * The defaults: concurrency 1, 30 s lease, 1 s poll, 20 s shutdown, exponential back-off 1 s
	 * x2 up to 5 min, each job's own max attempts, {@code ON_SUCCESS}, auto-startup.
	 * @return the default options
	 */
	public static ContainerOptions defaults() {
		return DEFAULTS;
	}

	/**
	 * A builder starting from the defaults.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * A builder starting from these options.
	 * @return a new builder
	 */
	public Builder toBuilder() {
		Builder builder = new Builder();
		builder.concurrency = this.concurrency;
		builder.lease = this.lease;
		builder.pollInterval = this.pollInterval;
		builder.shutdownTimeout = this.shutdownTimeout;
		builder.maxAttempts = this.maxAttempts;
		builder.backOffInitial = this.backOffInitial;
		builder.backOffMultiplier = this.backOffMultiplier;
		builder.backOffMax = this.backOffMax;
		builder.notRetryable = this.notRetryable;
		builder.acknowledgementMode = this.acknowledgementMode;
		builder.autoStartup = this.autoStartup;
		builder.prefetch = this.prefetch;
		return builder;
	}

	/**
	 * How many jobs run at once.
	 * @return the concurrency
	 */
	public int concurrency() {
		return this.concurrency;
	}

	/**
	 * Lease length of each reserved job; running jobs are extended before it ends.
	 * @return the lease
	 */
	public Duration lease() {
		return this.lease;
	}

	/**
	 * Longest blocking wait on an idle queue before the next reserve.
	 * @return the poll interval
	 */
	public Duration pollInterval() {
		return this.pollInterval;
	}

	/**
	 * How long a stop waits for running jobs before giving their leases back.
	 * @return the shutdown timeout
	 */
	public Duration shutdownTimeout() {
		return this.shutdownTimeout;
	}

	/**
	 * Attempts after which a job is dead-lettered, for its failures and for the losses of its
	 * lease alike. It replaces the job's own max attempts, upwards and downwards: the container
	 * passes it with each reserve call, which writes it on every job it hands out.
	 * @return the max attempts, or {@code null} to keep each job's own
	 */
	public @Nullable Integer maxAttempts() {
		return this.maxAttempts;
	}

	/**
	 * First delay between attempts of a failed job.
	 * @return the first back-off
	 */
	public Duration backOffInitial() {
		return this.backOffInitial;
	}

	/**
	 * Factor between successive delays.
	 * @return the back-off multiplier
	 */
	public double backOffMultiplier() {
		return this.backOffMultiplier;
	}

	/**
	 * Longest delay between attempts.
	 * @return the longest back-off
	 */
	public Duration backOffMax() {
		return this.backOffMax;
	}

	/**
	 * The back-off between attempts of a failed job: exponential from
	 * {@link #backOffInitial()} by {@link #backOffMultiplier()} up to {@link #backOffMax()},
	 * without an end of its own (the job's max attempts end it). A new instance on every call.
	 * @return the back-off
	 */
	public BackOff backOff() {
		return exponentialBackOff(this.backOffInitial, this.backOffMultiplier, this.backOffMax);
	}

	/**
	 * Exception types that dead-letter a job at once, without retries.
	 * @return the types, unmodifiable
	 */
	public List<Class<? extends Throwable>> notRetryable() {
		return this.notRetryable;
	}

	/**
	 * When jobs are acknowledged.
	 * @return the acknowledgement mode
	 */
	public AcknowledgementMode acknowledgementMode() {
		return this.acknowledgementMode;
	}

	/**
	 * Whether the container starts with the application.
	 * @return whether it starts automatically
	 */
	public boolean autoStartup() {
		return this.autoStartup;
	}

	/**
	 * Jobs reserved beyond {@code concurrency}, waiting for a free thread (their leases are
	 * extended too), so each reserve call carries more jobs. Unset, it adapts: from
	 * {@code concurrency}, it grows to as many jobs as the handlers finish in about two reserve
	 * round trips, up to {@link #maxPrefetch()}, and shrinks back as handlers slow down.
	 * @return the prefetch, or {@code null} to adapt
	 */
	public @Nullable Integer prefetch() {
		return this.prefetch;
	}

	/**
	 * The most jobs reserved beyond {@code concurrency}.
	 * @return the prefetch, or when unset the most it adapts to: 16 per thread, at most 256, and
	 * at least {@code concurrency}
	 */
	public int maxPrefetch() {
		return (this.prefetch != null) ? this.prefetch : adaptivePrefetchCeiling(this.concurrency);
	}

	/**
	 * The most an unset prefetch adapts to.
	 * @param concurrency the handler threads
	 * @return 16 per thread, at most 256, and at least {@code concurrency}
	 */
	public static int adaptivePrefetchCeiling(int concurrency) {
		return Math.max(concurrency, Math.min(256, 16 * concurrency));
	}

	/**
	 * How often running jobs' leases are extended.
	 * @return a third of the lease
	 */
	public Duration leaseExtensionInterval() {
		return this.lease.dividedBy(3);
	}

	private static BackOff exponentialBackOff(Duration initial, double multiplier, Duration max) {
		ExponentialBackOff backOff = new ExponentialBackOff(initial.toMillis(), multiplier);
		backOff.setMaxInterval(max.toMillis());
		return backOff;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		if (!(other instanceof ContainerOptions that)) {
			return false;
		}
		return this.concurrency == that.concurrency && this.lease.equals(that.lease)
				&& this.pollInterval.equals(that.pollInterval) && this.shutdownTimeout.equals(that.shutdownTimeout)
				&& Objects.equals(this.maxAttempts, that.maxAttempts) && this.backOffInitial.equals(that.backOffInitial)
				&& Double.compare(this.backOffMultiplier, that.backOffMultiplier) == 0
				&& this.backOffMax.equals(that.backOffMax) && this.notRetryable.equals(that.notRetryable)
				&& this.acknowledgementMode == that.acknowledgementMode && this.autoStartup == that.autoStartup
				&& Objects.equals(this.prefetch, that.prefetch);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.concurrency, this.lease, this.pollInterval, this.shutdownTimeout, this.maxAttempts,
				this.backOffInitial, this.backOffMultiplier, this.backOffMax, this.notRetryable,
				this.acknowledgementMode, this.autoStartup, this.prefetch);
	}

	@Override
	public String toString() {
		return "ContainerOptions[concurrency=" + this.concurrency + ", prefetch=" + this.prefetch + ", lease="
				+ this.lease + ", pollInterval=" + this.pollInterval + ", shutdownTimeout=" + this.shutdownTimeout
				+ ", maxAttempts=" + this.maxAttempts + ", backOff=" + this.backOffInitial + " x"
				+ this.backOffMultiplier + " up to " + this.backOffMax + ", notRetryable=" + this.notRetryable
				+ ", acknowledgementMode=" + this.acknowledgementMode + ", autoStartup=" + this.autoStartup + "]";
	}

	/**
	 * Builder for {@link ContainerOptions}. The setters take any value; {@link #build()} checks
	 * them together.
	 */
	public static final class Builder {

		private int concurrency = DEFAULT_CONCURRENCY;

		private Duration lease = DEFAULT_LEASE;

		private Duration pollInterval = DEFAULT_POLL_INTERVAL;

		private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;

		private @Nullable Integer maxAttempts;

		private Duration backOffInitial = DEFAULT_BACKOFF_INITIAL;

		private double backOffMultiplier = DEFAULT_BACKOFF_MULTIPLIER;

		private Duration backOffMax = DEFAULT_BACKOFF_MAX;

		private List<Class<? extends Throwable>> notRetryable = List.of();

		private AcknowledgementMode acknowledgementMode = DEFAULT_ACKNOWLEDGEMENT_MODE;

		private boolean autoStartup = true;

		private @Nullable Integer prefetch;

		private Builder() {
		}

		/**
		 * How many jobs run at once, from 1 to {@value ContainerOptions#MAX_CONCURRENCY}.
		 * @param concurrency the concurrency
		 * @return this builder
		 */
		public Builder concurrency(int concurrency) {
			this.concurrency = concurrency;
			return this;
		}

		/**
		 * Lease of each reserved job, from 100 ms to 7 days.
		 * @param lease the lease
		 * @return this builder
		 */
		public Builder lease(Duration lease) {
			this.lease = Objects.requireNonNull(lease, "lease");
			return this;
		}

		/**
		 * Longest blocking wait on an idle queue, from 10 ms to 30 s.
		 * @param pollInterval the poll interval
		 * @return this builder
		 */
		public Builder pollInterval(Duration pollInterval) {
			this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
			return this;
		}

		/**
		 * How long a stop waits for running jobs; zero or more.
		 * @param shutdownTimeout the shutdown timeout
		 * @return this builder
		 */
		public Builder shutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
			return this;
		}

		/**
		 * Attempts after which a job is dead-lettered, replacing the job's own (upwards and
		 * downwards), from 1 to {@value JobOptions#MAX_ATTEMPTS_LIMIT}.
		 * @param maxAttempts the max attempts, or {@code null} to keep each job's own
		 * @return this builder
		 */
		public Builder maxAttempts(@Nullable Integer maxAttempts) {
			this.maxAttempts = maxAttempts;
			return this;
		}

		/**
		 * Exponential back-off between attempts of a failed job.
		 * @param initial first delay
		 * @param multiplier factor between delays, at least 1
		 * @param max longest delay
		 * @return this builder
		 */
		public Builder backOff(Duration initial, double multiplier, Duration max) {
			return backOffInitial(initial).backOffMultiplier(multiplier).backOffMax(max);
		}

		/**
		 * First delay between attempts; the multiplier and longest delay stay as they are.
		 * @param initial first delay
		 * @return this builder
		 */
		public Builder backOffInitial(Duration initial) {
			this.backOffInitial = Objects.requireNonNull(initial, "initial");
			return this;
		}

		/**
		 * Factor between successive delays, at least 1; the other back-off values stay as they are.
		 * @param multiplier the factor
		 * @return this builder
		 */
		public Builder backOffMultiplier(double multiplier) {
			this.backOffMultiplier = multiplier;
			return this;
		}

		/**
		 * Longest delay between attempts; the other back-off values stay as they are.
		 * @param max longest delay
		 * @return this builder
		 */
		public Builder backOffMax(Duration max) {
			this.backOffMax = Objects.requireNonNull(max, "max");
			return this;
		}

		/**
		 * Exception types that dead-letter a job at once, without retries.
		 * @param notRetryable the types
		 * @return this builder
		 */
		public Builder notRetryable(List<Class<? extends Throwable>> notRetryable) {
			this.notRetryable = List.copyOf(notRetryable);
			return this;
		}

		/**
		 * When jobs are acknowledged.
		 * @param acknowledgementMode the mode
		 * @return this builder
		 */
		public Builder acknowledgementMode(AcknowledgementMode acknowledgementMode) {
			this.acknowledgementMode = Objects.requireNonNull(acknowledgementMode, "acknowledgementMode");
			return this;
		}

		/**
		 * Whether the container starts with the application.
		 * @param autoStartup whether it starts automatically
		 * @return this builder
		 */
		public Builder autoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
			return this;
		}

		/**
		 * Jobs reserved beyond {@code concurrency}, from 0 to 10,000.
		 * @param prefetch the prefetch, or {@code null} to adapt to the handlers' speed
		 * @return this builder
		 */
		public Builder prefetch(@Nullable Integer prefetch) {
			this.prefetch = prefetch;
			return this;
		}

		/**
		 * The options.
		 * @return the options
		 * @throws IllegalArgumentException if a value is out of its range
		 */
		public ContainerOptions build() {
			if (this.concurrency < 1 || this.concurrency > MAX_CONCURRENCY) {
				throw new IllegalArgumentException(
						"Concurrency " + this.concurrency + " is out of range: it must be from 1 to " + MAX_CONCURRENCY);
			}
			if (this.lease.compareTo(MIN_LEASE) < 0 || this.lease.compareTo(QueueTemplate.MAX_LEASE) > 0) {
				throw new IllegalArgumentException("Lease " + this.lease + " is out of range: it must be from "
						+ MIN_LEASE + " to " + QueueTemplate.MAX_LEASE);
			}
			if (this.pollInterval.compareTo(MIN_POLL_INTERVAL) < 0 || this.pollInterval.compareTo(MAX_POLL_INTERVAL) > 0) {
				throw new IllegalArgumentException(
						"Poll interval " + this.pollInterval + " is out of range: it must be from 10 ms to 30 s");
			}
			if (this.shutdownTimeout.isNegative()) {
				throw new IllegalArgumentException("Shutdown timeout " + this.shutdownTimeout + " must not be negative");
			}
			if (this.maxAttempts != null && (this.maxAttempts < 1 || this.maxAttempts > JobOptions.MAX_ATTEMPTS_LIMIT)) {
				throw new IllegalArgumentException("Max attempts " + this.maxAttempts
						+ " is out of range: it must be from 1 to " + JobOptions.MAX_ATTEMPTS_LIMIT);
			}
			if (this.prefetch != null && (this.prefetch < 0 || this.prefetch > QueueTemplate.MAX_RESERVE)) {
				throw new IllegalArgumentException(
						"Prefetch " + this.prefetch + " is out of range: it must be from 0 to " + QueueTemplate.MAX_RESERVE);
			}
			// one reserve call takes up to concurrency + prefetch jobs
			int reserved = this.concurrency
					+ ((this.prefetch != null) ? this.prefetch : adaptivePrefetchCeiling(this.concurrency));
			if (reserved > QueueTemplate.MAX_RESERVE) {
				throw new IllegalArgumentException("Concurrency " + this.concurrency + " + prefetch " + this.prefetch
						+ " = " + reserved + " jobs reserved at once is out of range: together they must be at most "
						+ QueueTemplate.MAX_RESERVE);
			}
			// the back-off checks its own values
			exponentialBackOff(this.backOffInitial, this.backOffMultiplier, this.backOffMax);
			return new ContainerOptions(this);
		}

	}

}
