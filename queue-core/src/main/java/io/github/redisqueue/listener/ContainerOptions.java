package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueTemplate;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Immutable settings of one listener container. Start from {@link #defaults()} and change with
 * the {@code with...} methods; each checks its value, and values the engine cannot honour are
 * refused with the value and the allowed range: concurrency 1 to 1,000, prefetch 0 to 10,000 and
 * concurrency + prefetch at most {@link QueueTemplate#MAX_RESERVE} (one reserve call takes that
 * many), a lease from 100 ms to {@link QueueTemplate#MAX_LEASE}, max attempts from 1 to
 * {@link JobOptions#MAX_ATTEMPTS_LIMIT}.
 *
 * @param concurrency how many jobs run at once
 * @param lease lease length of each reserved job; running jobs are extended before it ends
 * @param pollInterval longest blocking wait on an idle queue before the next reserve
 * @param shutdownTimeout how long a stop waits for running jobs before giving their leases back
 * @param maxAttempts attempts after which a job is dead-lettered, replacing the job's own (upwards and
 * downwards) for its failures and for the losses of its lease alike; written on each job when it is
 * reserved; {@code null} keeps each job's own
 * @param backOff back-off between attempts of a failed job
 * @param notRetryable exception types that dead-letter a job at once
 * @param acknowledgementMode when jobs are acknowledged
 * @param autoStartup whether the container starts with the application
 * @param prefetch jobs reserved beyond {@code concurrency}, waiting for a free thread (their
 * leases are extended too), so each reserve call carries more jobs; {@code null} for as many as
 * {@code concurrency}
 * @since 0.1.0
 */
public record ContainerOptions(int concurrency, Duration lease, Duration pollInterval, Duration shutdownTimeout,
		@org.jspecify.annotations.Nullable Integer maxAttempts, BackOff backOff,
		List<Class<? extends Throwable>> notRetryable, AcknowledgementMode acknowledgementMode, boolean autoStartup,
		@org.jspecify.annotations.Nullable Integer prefetch) {

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

	/** Shortest lease a container accepts. */
	public static final Duration MIN_LEASE = Duration.ofMillis(100);

	/** Most jobs a container runs at once. */
	public static final int MAX_CONCURRENCY = 1000;

	/** Shortest poll interval a container accepts. */
	public static final Duration MIN_POLL_INTERVAL = Duration.ofMillis(10);

	/** Longest poll interval a container accepts. */
	public static final Duration MAX_POLL_INTERVAL = Duration.ofSeconds(30);

	public ContainerOptions {
		if (concurrency < 1 || concurrency > MAX_CONCURRENCY) {
			throw new IllegalArgumentException(
					"Concurrency " + concurrency + " is out of range: it must be from 1 to " + MAX_CONCURRENCY);
		}
		if (lease.compareTo(MIN_LEASE) < 0 || lease.compareTo(QueueTemplate.MAX_LEASE) > 0) {
			throw new IllegalArgumentException("Lease " + lease + " is out of range: it must be from " + MIN_LEASE
					+ " to " + QueueTemplate.MAX_LEASE);
		}
		if (pollInterval.compareTo(MIN_POLL_INTERVAL) < 0 || pollInterval.compareTo(MAX_POLL_INTERVAL) > 0) {
			throw new IllegalArgumentException("Poll interval " + pollInterval + " is out of range: it must be from 10 ms to 30 s");
		}
		if (shutdownTimeout.isNegative()) {
			throw new IllegalArgumentException("Shutdown timeout " + shutdownTimeout + " must not be negative");
		}
		if (maxAttempts != null && (maxAttempts < 1 || maxAttempts > JobOptions.MAX_ATTEMPTS_LIMIT)) {
			throw new IllegalArgumentException("Max attempts " + maxAttempts + " is out of range: it must be from 1 to "
					+ JobOptions.MAX_ATTEMPTS_LIMIT);
		}
		if (prefetch != null && (prefetch < 0 || prefetch > QueueTemplate.MAX_RESERVE)) {
			throw new IllegalArgumentException(
					"Prefetch " + prefetch + " is out of range: it must be from 0 to " + QueueTemplate.MAX_RESERVE);
		}
		// one reserve call takes up to concurrency + prefetch jobs
		int reserved = concurrency + ((prefetch != null) ? prefetch : concurrency);
		if (reserved > QueueTemplate.MAX_RESERVE) {
			throw new IllegalArgumentException("Concurrency " + concurrency + " + prefetch " + prefetch + " = " + reserved
					+ " jobs reserved at once is out of range: together they must be at most " + QueueTemplate.MAX_RESERVE);
		}
		notRetryable = List.copyOf(notRetryable);
	}

	/** The defaults: concurrency 1, 30 s lease, 1 s poll, 20 s shutdown, exponential back-off 1 s x2 up to 5 min. */
	public static ContainerOptions defaults() {
		return new ContainerOptions(DEFAULT_CONCURRENCY, DEFAULT_LEASE, DEFAULT_POLL_INTERVAL, DEFAULT_SHUTDOWN_TIMEOUT,
				null, exponentialBackOff(DEFAULT_BACKOFF_INITIAL, DEFAULT_BACKOFF_MULTIPLIER, DEFAULT_BACKOFF_MAX), List.of(),
				AcknowledgementMode.ON_SUCCESS, true, null);
	}

	/**
	 * An exponential back-off with a cap and no end (the job's max attempts end it).
	 * @param initial first delay
	 * @param multiplier factor between delays
	 * @param max longest delay
	 * @return the back-off
	 */
	public static BackOff exponentialBackOff(Duration initial, double multiplier, Duration max) {
		ExponentialBackOff backOff = new ExponentialBackOff(initial.toMillis(), multiplier);
		backOff.setMaxInterval(max.toMillis());
		return backOff;
	}

	/** Jobs reserved beyond {@code concurrency}: the prefetch, or {@code concurrency} when unset. */
	public int effectivePrefetch() {
		return (this.prefetch != null) ? this.prefetch : this.concurrency;
	}

	/** How often running jobs' leases are extended: a third of the lease. */
	public Duration leaseExtensionInterval() {
		return this.lease.dividedBy(3);
	}

	public ContainerOptions withConcurrency(int concurrency) {
		return new ContainerOptions(concurrency, this.lease, this.pollInterval, this.shutdownTimeout, this.maxAttempts,
				this.backOff, this.notRetryable, this.acknowledgementMode, this.autoStartup, this.prefetch);
	}

	public ContainerOptions withLease(Duration lease) {
		return new ContainerOptions(this.concurrency, lease, this.pollInterval, this.shutdownTimeout, this.maxAttempts,
				this.backOff, this.notRetryable, this.acknowledgementMode, this.autoStartup, this.prefetch);
	}

	public ContainerOptions withPollInterval(Duration pollInterval) {
		return new ContainerOptions(this.concurrency, this.lease, pollInterval, this.shutdownTimeout, this.maxAttempts,
				this.backOff, this.notRetryable, this.acknowledgementMode, this.autoStartup, this.prefetch);
	}

	public ContainerOptions withShutdownTimeout(Duration shutdownTimeout) {
		return new ContainerOptions(this.concurrency, this.lease, this.pollInterval, shutdownTimeout, this.maxAttempts,
				this.backOff, this.notRetryable, this.acknowledgementMode, this.autoStartup, this.prefetch);
	}

	public ContainerOptions withMaxAttempts(@org.jspecify.annotations.Nullable Integer maxAttempts) {
		return new ContainerOptions(this.concurrency, this.lease, this.pollInterval, this.shutdownTimeout, maxAttempts,
				this.backOff, this.notRetryable, this.acknowledgementMode, this.autoStartup, this.prefetch);
	}

	public ContainerOptions withBackOff(BackOff backOff) {
		return new ContainerOptions(this.concurrency, this.lease, this.pollInterval, this.shutdownTimeout,
				this.maxAttempts, backOff, this.notRetryable, this.acknowledgementMode, this.autoStartup, this.prefetch);
	}

	public ContainerOptions withNotRetryable(List<Class<? extends Throwable>> notRetryable) {
		return new ContainerOptions(this.concurrency, this.lease, this.pollInterval, this.shutdownTimeout,
				this.maxAttempts, this.backOff, notRetryable, this.acknowledgementMode, this.autoStartup, this.prefetch);
	}

	public ContainerOptions withAcknowledgementMode(AcknowledgementMode acknowledgementMode) {
		return new ContainerOptions(this.concurrency, this.lease, this.pollInterval, this.shutdownTimeout,
				this.maxAttempts, this.backOff, this.notRetryable, acknowledgementMode, this.autoStartup, this.prefetch);
	}

	public ContainerOptions withPrefetch(@org.jspecify.annotations.Nullable Integer prefetch) {
		return new ContainerOptions(this.concurrency, this.lease, this.pollInterval, this.shutdownTimeout,
				this.maxAttempts, this.backOff, this.notRetryable, this.acknowledgementMode, this.autoStartup, prefetch);
	}

	public ContainerOptions withAutoStartup(boolean autoStartup) {
		return new ContainerOptions(this.concurrency, this.lease, this.pollInterval, this.shutdownTimeout,
				this.maxAttempts, this.backOff, this.notRetryable, this.acknowledgementMode, autoStartup, this.prefetch);
	}

}
