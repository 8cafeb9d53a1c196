package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redisqueue.core.partition.JobRouting;
import org.jspecify.annotations.Nullable;

/**
 * Per-job options of an enqueue. Immutable; build with {@link #builder()}. Every setter checks
 * its value and throws an {@link IllegalArgumentException} that names the value and the rule.
 *
 * <pre class="code">
 * JobOptions options = JobOptions.builder()
 *         .priority(10)
 *         .delay(Duration.ofMinutes(5))
 *         .uniqueKey("invoice-42")
 *         .expireAfter(Duration.ofHours(1))
 *         .build();
 * </pre>
 *
 * @since 0.1.0
 */
public final class JobOptions {

	/** Lowest priority. */
	public static final int MIN_PRIORITY = -1000;

	/** Highest priority. */
	public static final int MAX_PRIORITY = 1000;

	/** Most attempts a job may be given. */
	public static final int MAX_ATTEMPTS_LIMIT = 10_000;

	/** Longest uniqueness or idempotency key, in characters. */
	public static final int MAX_UNIQUE_KEY_LENGTH = 512;

	/** Longest uniqueness or idempotency window: 3,650 days. */
	public static final Duration MAX_WINDOW = Duration.ofDays(3650);

	/** Idempotency window when none is given: one day. */
	public static final Duration DEFAULT_IDEMPOTENCY_WINDOW = Duration.ofDays(1);

	private static final JobOptions DEFAULTS = new Builder().build();

	private final int priority;

	private final @Nullable Duration delay;

	private final @Nullable Instant runAt;

	private final @Nullable String uniqueKey;

	private final Duration uniqueFor;

	private final @Nullable Duration expireAfter;

	private final @Nullable Integer maxAttempts;

	private final @Nullable String idempotencyKey;

	private final Duration idempotencyWindow;

	private final Map<String, String> headers;

	private final @Nullable String group;

	private final @Nullable String partitionKey;

	private JobOptions(Builder builder) {
		this.priority = builder.priority;
		this.delay = builder.delay;
		this.runAt = builder.runAt;
		this.uniqueKey = builder.uniqueKey;
		this.uniqueFor = builder.uniqueFor;
		this.expireAfter = builder.expireAfter;
		this.maxAttempts = builder.maxAttempts;
		this.idempotencyKey = builder.idempotencyKey;
		this.idempotencyWindow = builder.idempotencyWindow;
		this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(builder.headers));
		this.group = builder.group;
		this.partitionKey = builder.partitionKey;
		if (this.group != null && (this.delay != null || this.runAt != null)) {
			throw new IllegalArgumentException("Job of group '" + Builder.abbreviate(this.group)
					+ "' cannot be delayed: a grouped job waits for its turn in its group, not for a time");
		}
	}

	/** Options with every default: priority 0, no delay, no uniqueness, no expiry. */
	public static JobOptions defaults() {
		return DEFAULTS;
	}

	/** A builder starting from the defaults. */
	public static Builder builder() {
		return new Builder();
	}

	/** A builder starting from these options. */
	public Builder toBuilder() {
		Builder builder = new Builder();
		builder.priority = this.priority;
		builder.delay = this.delay;
		builder.runAt = this.runAt;
		builder.uniqueKey = this.uniqueKey;
		builder.uniqueFor = this.uniqueFor;
		builder.expireAfter = this.expireAfter;
		builder.maxAttempts = this.maxAttempts;
		builder.idempotencyKey = this.idempotencyKey;
		builder.idempotencyWindow = this.idempotencyWindow;
		builder.headers.putAll(this.headers);
		builder.group = this.group;
		builder.partitionKey = this.partitionKey;
		return builder;
	}

	/** Priority from {@value #MIN_PRIORITY} to {@value #MAX_PRIORITY}; higher runs first. */
	public int getPriority() {
		return this.priority;
	}

	/** Time to wait before the job may run, if any. */
	public @Nullable Duration getDelay() {
		return this.delay;
	}

	/** Time at which the job may run, if any; wins over {@link #getDelay()}. */
	public @Nullable Instant getRunAt() {
		return this.runAt;
	}

	/** Key that refuses a second job while this one waits, is delayed or runs. */
	public @Nullable String getUniqueKey() {
		return this.uniqueKey;
	}

	/** How long the uniqueness key stays taken after the job completed. */
	public Duration getUniqueFor() {
		return this.uniqueFor;
	}

	/** Time after enqueue past which a job that has not started goes to the dead letters. */
	public @Nullable Duration getExpireAfter() {
		return this.expireAfter;
	}

	/**
	 * Attempts the job may use, or {@code null} for the engine-wide default
	 * ({@link QueueSettings#defaultMaxAttempts()}); there is no per-queue default. A listener
	 * container with max attempts of its own replaces the job's when it reserves the job.
	 */
	public @Nullable Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	/** Caller-chosen key that makes a repeated enqueue return the first job, if any. */
	public @Nullable String getIdempotencyKey() {
		return this.idempotencyKey;
	}

	/** How long after the enqueue a repeated enqueue with the idempotency key returns the first job. */
	public Duration getIdempotencyWindow() {
		return this.idempotencyWindow;
	}

	/** The job's group key, or {@code null} for an ungrouped job. */
	public @Nullable String getGroup() {
		return this.group;
	}

	/** The key that picks the job's partition in a partitioned queue, or {@code null}. */
	public @Nullable String getPartitionKey() {
		return this.partitionKey;
	}

	/**
	 * What picks the partition of a job of a partitioned queue: its partition key, else its group,
	 * its uniqueness key or its idempotency key (so that the group's concurrency and the refusal of
	 * duplicates hold across partitions; {@link JobRouting} refuses a job whose keys differ);
	 * {@code null} when the job has none of them and may go to any partition.
	 */
	public @Nullable String routingKey() {
		if (this.partitionKey != null) {
			return this.partitionKey;
		}
		if (this.group != null) {
			return this.group;
		}
		return (this.uniqueKey != null) ? this.uniqueKey : this.idempotencyKey;
	}

	/** String headers stored with the job (trace context and the like). */
	public Map<String, String> getHeaders() {
		return this.headers;
	}

	/**
	 * Builder for {@link JobOptions}.
	 */
	public static final class Builder {

		private int priority;

		private @Nullable Duration delay;

		private @Nullable Instant runAt;

		private @Nullable String uniqueKey;

		private Duration uniqueFor = Duration.ZERO;

		private @Nullable Duration expireAfter;

		private @Nullable Integer maxAttempts;

		private @Nullable String idempotencyKey;

		private Duration idempotencyWindow = DEFAULT_IDEMPOTENCY_WINDOW;

		private final Map<String, String> headers = new LinkedHashMap<>();

		private @Nullable String group;

		private @Nullable String partitionKey;

		private Builder() {
		}

		/** Priority from -1000 to 1000, higher first; jobs of one priority run in FIFO order. */
		public Builder priority(int priority) {
			if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
				throw new IllegalArgumentException("Priority " + priority + " is out of range: it must be from "
						+ MIN_PRIORITY + " to " + MAX_PRIORITY);
			}
			this.priority = priority;
			return this;
		}

		/** Run no sooner than this long after enqueue (measured by the Redis server clock). */
		public Builder delay(Duration delay) {
			if (delay.isNegative()) {
				throw new IllegalArgumentException("Delay " + delay + " is negative: it must be zero or more");
			}
			this.delay = delay;
			return this;
		}

		/** Run no sooner than this time (compared with the Redis server clock). */
		public Builder runAt(Instant runAt) {
			if (runAt.toEpochMilli() <= 0) {
				throw new IllegalArgumentException("Run-at time " + runAt + " must be after the epoch");
			}
			this.runAt = runAt;
			return this;
		}

		/**
		 * Refuse a second job with this key while this one is waiting, delayed or running. The
		 * refused enqueue returns the id of the job that holds the key.
		 */
		public Builder uniqueKey(String uniqueKey) {
			if (uniqueKey.isEmpty() || uniqueKey.length() > MAX_UNIQUE_KEY_LENGTH) {
				throw new IllegalArgumentException("Uniqueness key '" + abbreviate(uniqueKey)
						+ "' must have from 1 to " + MAX_UNIQUE_KEY_LENGTH + " characters");
			}
			this.uniqueKey = uniqueKey;
			return this;
		}

		/** Keep the uniqueness key taken for this long after the job completed, at most 3,650 days. */
		public Builder uniqueFor(Duration uniqueFor) {
			this.uniqueFor = window("Uniqueness window", uniqueFor, false);
			return this;
		}

		/**
		 * Make the enqueue idempotent: a second enqueue with this key, within the idempotency
		 * window after the first, creates nothing and returns the first job's id (flagged as a
		 * duplicate), whatever became of that job since. Use it when a producer retries an
		 * enqueue whose outcome it does not know (a timeout, a reset connection): the retry
		 * cannot create the job twice. Unlike {@link #uniqueKey(String)}, the key is not freed when
		 * the job completes or dies; it lapses with its window. One key names one job, so it
		 * cannot be shared by the payloads of one {@code enqueueAll} call.
		 */
		public Builder idempotencyKey(String idempotencyKey) {
			if (idempotencyKey.isEmpty() || idempotencyKey.length() > MAX_UNIQUE_KEY_LENGTH) {
				throw new IllegalArgumentException("Idempotency key '" + abbreviate(idempotencyKey)
						+ "' must have from 1 to " + MAX_UNIQUE_KEY_LENGTH + " characters");
			}
			this.idempotencyKey = idempotencyKey;
			return this;
		}

		/** How long the idempotency key holds after the enqueue: from 1 ms to 3,650 days, one day by default. */
		public Builder idempotencyWindow(Duration idempotencyWindow) {
			this.idempotencyWindow = window("Idempotency window", idempotencyWindow, true);
			return this;
		}

		private static Duration window(String what, Duration window, boolean positive) {
			if (window.isNegative() || (positive && window.isZero()) || window.compareTo(MAX_WINDOW) > 0) {
				throw new IllegalArgumentException(what + " " + window + " is out of range: it must be from "
						+ (positive ? "1 ms" : "zero") + " to " + MAX_WINDOW.toDays() + " days");
			}
			return window;
		}

		/** Dead-letter the job with reason "expired" if it has not started this long after enqueue. */
		public Builder expireAfter(Duration expireAfter) {
			if (expireAfter.isNegative() || expireAfter.isZero()) {
				throw new IllegalArgumentException("Expiry " + expireAfter + " must be positive");
			}
			this.expireAfter = expireAfter;
			return this;
		}

		/** Attempts the job may use before it is dead-lettered, from 1 to 10,000. */
		public Builder maxAttempts(int maxAttempts) {
			if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_LIMIT) {
				throw new IllegalArgumentException(
						"Max attempts " + maxAttempts + " is out of range: it must be from 1 to " + MAX_ATTEMPTS_LIMIT);
			}
			this.maxAttempts = maxAttempts;
			return this;
		}

		/**
		 * Put the job in a group, for example all jobs of one customer: at most the queue's group
		 * concurrency of a group's jobs run at once (1 by default: one at a time, in the order
		 * they were enqueued), while jobs of other groups and ungrouped jobs flow freely. A job
		 * waiting for its turn holds no place in the queue's order; it is admitted at the end of
		 * its priority level when a job of its group ends (completes or dies). A grouped job
		 * cannot be delayed.
		 * @param group the group key, 1 to 512 characters
		 * @return this builder
		 */
		public Builder group(String group) {
			if (group.isEmpty() || group.length() > MAX_UNIQUE_KEY_LENGTH) {
				throw new IllegalArgumentException(
						"Group key '" + abbreviate(group) + "' must have from 1 to " + MAX_UNIQUE_KEY_LENGTH + " characters");
			}
			this.group = group;
			return this;
		}

		/**
		 * Route the job of a partitioned queue (see {@code QueueSettings.Builder#partitions}) by
		 * this key: every job with the same key goes to the same partition, so jobs of one key keep
		 * their order of priority and enqueue among themselves. Without one, a job goes to the
		 * partition of its group, uniqueness key or idempotency key, or to the next partition in
		 * turn. Ignored by a queue of one partition.
		 * @param partitionKey the key, 1 to 512 characters
		 * @return this builder
		 */
		public Builder partitionKey(String partitionKey) {
			if (partitionKey.isEmpty() || partitionKey.length() > MAX_UNIQUE_KEY_LENGTH) {
				throw new IllegalArgumentException("Partition key '" + abbreviate(partitionKey) + "' must have from 1 to "
						+ MAX_UNIQUE_KEY_LENGTH + " characters");
			}
			this.partitionKey = partitionKey;
			return this;
		}

		/** Add a string header. */
		public Builder header(String name, String value) {
			if (name.isEmpty()) {
				throw new IllegalArgumentException("Header names must not be empty");
			}
			this.headers.put(name, value);
			return this;
		}

		/** Add string headers. */
		public Builder headers(Map<String, String> headers) {
			headers.forEach(this::header);
			return this;
		}

		/** The options. */
		public JobOptions build() {
			return new JobOptions(this);
		}

		public static String abbreviate(String value) {
			return (value.length() > 40) ? value.substring(0, 40) + "..." : value;
		}

	}

}
