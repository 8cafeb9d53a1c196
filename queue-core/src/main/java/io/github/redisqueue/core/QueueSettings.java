package io.github.redisqueue.core;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Engine-wide settings of a {@link QueueTemplate}. Immutable; start from {@link #defaults()} or
 * {@link #builder()}, and derive changed settings with {@link #toBuilder()}:
 *
 * <pre class="code">
 * QueueSettings settings = QueueSettings.builder()
 *         .keyPrefix("jobs")
 *         .workerId("orders-0")
 *         .build();
 * </pre>
 *
 * {@link Builder#build()} refuses values the engine cannot work with, naming the value and the
 * rule.
 *
 * @since 0.1.0
 */
public final class QueueSettings {

	/** Default key prefix. */
	public static final String DEFAULT_KEY_PREFIX = "rq";

	/** Default largest payload: 1 MiB. */
	public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

	/** Default attempts per job. */
	public static final int DEFAULT_MAX_ATTEMPTS = 3;

	/** Largest reclaim and reap batch: bounds the work of one script call. */
	public static final int MAX_BATCH = 10_000;

	/** Default retention of completed jobs: none, they are deleted when acknowledged. */
	public static final Duration DEFAULT_COMPLETED_RETENTION = Duration.ZERO;

	/** Default retention of dead jobs. */
	public static final Duration DEFAULT_DEAD_RETENTION = Duration.ofDays(7);

	/** Default most expired leases one reserve call takes back. */
	public static final int DEFAULT_RECLAIM_BATCH = 100;

	/** Default most jobs a reaper pass handles per queue and step. */
	public static final int DEFAULT_REAP_BATCH = 1000;

	/** Default most jobs a bulk enqueue sends in one script call. */
	public static final int DEFAULT_ENQUEUE_CHUNK = 500;

	/** How long a handler's result is kept by default. */
	public static final Duration DEFAULT_RESULT_RETENTION = Duration.ofDays(1);

	/** Largest serialized handler result stored by default. */
	public static final int DEFAULT_MAX_RESULT_BYTES = 64 * 1024;

	/** How long a finished batch's status and list of sub-jobs are kept by default. */
	public static final Duration DEFAULT_BATCH_RETENTION = Duration.ofDays(1);

	/** How many jobs of one group run at once by default: one at a time, in order. */
	public static final int DEFAULT_GROUP_CONCURRENCY = 1;

	/** Most partitions of one queue. */
	public static final int MAX_PARTITIONS = 64;

	/** Most jobs of one batch or one group admitted at once: the largest cap. */
	public static final int MAX_CONCURRENCY_CAP = 1000;

	private final String keyPrefix;

	private final String workerId;

	private final int maxPayloadBytes;

	private final int defaultMaxAttempts;

	private final Duration completedRetention;

	private final Duration deadRetention;

	private final int reclaimBatch;

	private final int reapBatch;

	private final int enqueueChunk;

	private final Duration resultRetention;

	private final int maxResultBytes;

	private final Duration batchRetention;

	private final int defaultGroupConcurrency;

	private final Map<String, Integer> groupConcurrency;

	private final Map<String, Integer> partitions;

	private final Map<String, RateLimit> rateLimits;

	private QueueSettings(Builder builder, String workerId) {
		this.keyPrefix = builder.keyPrefix;
		this.workerId = workerId;
		this.maxPayloadBytes = builder.maxPayloadBytes;
		this.defaultMaxAttempts = builder.defaultMaxAttempts;
		this.completedRetention = builder.completedRetention;
		this.deadRetention = builder.deadRetention;
		this.reclaimBatch = builder.reclaimBatch;
		this.reapBatch = builder.reapBatch;
		this.enqueueChunk = builder.enqueueChunk;
		this.resultRetention = builder.resultRetention;
		this.maxResultBytes = builder.maxResultBytes;
		this.batchRetention = builder.batchRetention;
		this.defaultGroupConcurrency = builder.defaultGroupConcurrency;
		this.groupConcurrency = Map.copyOf(builder.groupConcurrency);
		Map<String, Integer> partitioned = new HashMap<>(builder.partitions);
		partitioned.values().removeIf((value) -> value == 1);
		this.partitions = Map.copyOf(partitioned);
		this.rateLimits = Map.copyOf(builder.rateLimits);
	}

	/**
	 * The default settings, with a worker id made of host name and process id.
	 * @return the default settings
	 */
	public static QueueSettings defaults() {
		return builder().build();
	}

	/**
	 * A builder starting from the defaults.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * A builder starting from these settings.
	 * @return a new builder
	 */
	public Builder toBuilder() {
		Builder builder = new Builder();
		builder.keyPrefix = this.keyPrefix;
		builder.workerId = this.workerId;
		builder.maxPayloadBytes = this.maxPayloadBytes;
		builder.defaultMaxAttempts = this.defaultMaxAttempts;
		builder.completedRetention = this.completedRetention;
		builder.deadRetention = this.deadRetention;
		builder.reclaimBatch = this.reclaimBatch;
		builder.reapBatch = this.reapBatch;
		builder.enqueueChunk = this.enqueueChunk;
		builder.resultRetention = this.resultRetention;
		builder.maxResultBytes = this.maxResultBytes;
		builder.batchRetention = this.batchRetention;
		builder.defaultGroupConcurrency = this.defaultGroupConcurrency;
		builder.groupConcurrency.putAll(this.groupConcurrency);
		builder.partitions.putAll(this.partitions);
		builder.rateLimits.putAll(this.rateLimits);
		return builder;
	}

	/**
	 * How long a handler's result is kept after its job completed; zero stores no results.
	 * @return the retention
	 */
	public Duration resultRetention() {
		return this.resultRetention;
	}

	/**
	 * Largest serialized handler result stored; a larger one is refused.
	 * @return the limit in bytes
	 */
	public int maxResultBytes() {
		return this.maxResultBytes;
	}

	/**
	 * How long a batch's status and list of sub-jobs are kept after it finished (and its
	 * completion job, if any, was enqueued).
	 * @return the retention
	 */
	public Duration batchRetention() {
		return this.batchRetention;
	}

	/**
	 * How many jobs of one group of a queue run at once (see {@link JobOptions.Builder#group(String)}).
	 * @param queue the queue name
	 * @return the group concurrency of that queue, or the default
	 */
	public int groupConcurrency(String queue) {
		return this.groupConcurrency.getOrDefault(queue, this.defaultGroupConcurrency);
	}

	/**
	 * Over how many partitions a queue is spread: each partition is a queue of its own keys, with
	 * its own hash tag, so that on a Redis Cluster the partitions of one queue sit on different
	 * masters. Producers and consumers of a queue must agree on it; it is recorded in Redis when
	 * the queue is first used, and a template configured otherwise is refused.
	 * @param queue the queue name
	 * @return the partitions of that queue, 1 when it has no setting
	 */
	public int partitions(String queue) {
		return this.partitions.getOrDefault(queue, 1);
	}

	/**
	 * The rate limit of a queue: at most so many of its jobs are handed out in any window, by
	 * every consumer together (see {@link RateLimit}). Every reserve of this template passes it to
	 * the script, which keeps the window in Redis; every consumer of the queue must be configured
	 * with the same limit (a consumer without it neither honours nor records the window).
	 * @param queue the queue name
	 * @return the limit, or {@code null} when the queue has none
	 */
	public @Nullable RateLimit rateLimit(String queue) {
		return this.rateLimits.get(queue);
	}

	/**
	 * The queues spread over more than one partition, with their partition counts.
	 * @return queue name to partition count
	 */
	public Map<String, Integer> partitionedQueues() {
		return this.partitions;
	}

	/**
	 * Prefix of every Redis key (default {@code rq}).
	 * @return the key prefix
	 */
	public String keyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * Identity recorded on leases this process holds (default {@code host:pid}, see
	 * {@link #defaultWorkerId()}).
	 * @return the worker id
	 */
	public String workerId() {
		return this.workerId;
	}

	/**
	 * Largest serialized payload accepted at enqueue (default 1 MiB).
	 * @return the limit in bytes
	 */
	public int maxPayloadBytes() {
		return this.maxPayloadBytes;
	}

	/**
	 * Attempts a job gets when its enqueue options name none (default 3). It is stored on the
	 * job at enqueue; a listener container with max attempts of its own replaces it when it
	 * reserves the job.
	 * @return the default max attempts
	 */
	public int defaultMaxAttempts() {
		return this.defaultMaxAttempts;
	}

	/**
	 * How long completed jobs are kept; zero deletes them at once (default).
	 * @return the retention
	 */
	public Duration completedRetention() {
		return this.completedRetention;
	}

	/**
	 * How long dead jobs are kept; zero keeps them until purged (default 7 days).
	 * @return the retention
	 */
	public Duration deadRetention() {
		return this.deadRetention;
	}

	/**
	 * Most expired leases a single reserve call takes back (default 100).
	 * @return the reclaim batch
	 */
	public int reclaimBatch() {
		return this.reclaimBatch;
	}

	/**
	 * Most jobs a reaper pass handles per queue and step (default 1,000).
	 * @return the reap batch
	 */
	public int reapBatch() {
		return this.reapBatch;
	}

	/**
	 * Most jobs sent in one script call by a bulk enqueue (default 500).
	 * @return the enqueue chunk
	 */
	public int enqueueChunk() {
		return this.enqueueChunk;
	}

	/**
	 * {@code host:pid} of this JVM. The host is the local host name; when it cannot be resolved
	 * (or is only {@code localhost}) the {@code HOSTNAME} environment variable (set in containers
	 * and pods); failing both, {@code unknown-} and a random suffix. A fixed fallback such as
	 * {@code localhost} would give two containers whose process id is 1 the same identity, and the
	 * start of each would take back the other's leases; a random one is unique, at the cost that a
	 * restart does not take back its predecessor's leases at once (they return when the old
	 * identity is found silent or its leases run out). Set {@code workerId} explicitly for a stable
	 * identity.
	 */
	public static String defaultWorkerId() {
		String host;
		try {
			host = InetAddress.getLocalHost().getHostName();
		}
		catch (Exception ex) {
			host = null;
		}
		return defaultWorkerId(host, System.getenv("HOSTNAME"), ManagementFactory.getRuntimeMXBean().getPid());
	}

	static String defaultWorkerId(@Nullable String resolvedHost, @Nullable String hostVariable, long pid) {
		String host = isDistinctive(resolvedHost) ? resolvedHost
				: isDistinctive(hostVariable) ? hostVariable
						: "unknown-" + Long.toHexString(new SecureRandom().nextLong() & 0xffffffffffL);
		host = host.strip().replace('#', '-');
		if (host.length() > 150) {
			host = host.substring(0, 150);
		}
		return host + ":" + pid;
	}

	private static boolean isDistinctive(@Nullable String host) {
		if (host == null || host.isBlank()) {
			return false;
		}
		String name = host.strip().toLowerCase(Locale.ROOT);
		return !name.equals("localhost") && !name.startsWith("localhost.");
	}

	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		if (!(other instanceof QueueSettings that)) {
			return false;
		}
		return this.keyPrefix.equals(that.keyPrefix) && this.workerId.equals(that.workerId)
				&& this.maxPayloadBytes == that.maxPayloadBytes && this.defaultMaxAttempts == that.defaultMaxAttempts
				&& this.completedRetention.equals(that.completedRetention)
				&& this.deadRetention.equals(that.deadRetention) && this.reclaimBatch == that.reclaimBatch
				&& this.reapBatch == that.reapBatch && this.enqueueChunk == that.enqueueChunk
				&& this.resultRetention.equals(that.resultRetention) && this.maxResultBytes == that.maxResultBytes
				&& this.batchRetention.equals(that.batchRetention)
				&& this.defaultGroupConcurrency == that.defaultGroupConcurrency
				&& this.groupConcurrency.equals(that.groupConcurrency) && this.partitions.equals(that.partitions)
				&& this.rateLimits.equals(that.rateLimits);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.keyPrefix, this.workerId, this.maxPayloadBytes, this.defaultMaxAttempts,
				this.completedRetention, this.deadRetention, this.reclaimBatch, this.reapBatch, this.enqueueChunk,
				this.resultRetention, this.maxResultBytes, this.batchRetention, this.defaultGroupConcurrency,
				this.groupConcurrency, this.partitions, this.rateLimits);
	}

	@Override
	public String toString() {
		return "QueueSettings[keyPrefix=" + this.keyPrefix + ", workerId=" + this.workerId + ", maxPayloadBytes="
				+ this.maxPayloadBytes + ", defaultMaxAttempts=" + this.defaultMaxAttempts + ", completedRetention="
				+ this.completedRetention + ", deadRetention=" + this.deadRetention + ", reclaimBatch="
				+ this.reclaimBatch + ", reapBatch=" + this.reapBatch + ", enqueueChunk=" + this.enqueueChunk
				+ ", resultRetention=" + this.resultRetention + ", maxResultBytes=" + this.maxResultBytes
				+ ", batchRetention=" + this.batchRetention + ", defaultGroupConcurrency=" + this.defaultGroupConcurrency
				+ ", groupConcurrency=" + this.groupConcurrency + ", partitions=" + this.partitions
				+ ", rateLimits=" + this.rateLimits + "]";
	}

	/**
	 * Builder for {@link QueueSettings}. The setters take any value; {@link #build()} checks
	 * them.
	 */
	public static final class Builder {

		private String keyPrefix = DEFAULT_KEY_PREFIX;

		private @Nullable String workerId;

		private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;

		private int defaultMaxAttempts = DEFAULT_MAX_ATTEMPTS;

		private Duration completedRetention = DEFAULT_COMPLETED_RETENTION;

		private Duration deadRetention = DEFAULT_DEAD_RETENTION;

		private int reclaimBatch = DEFAULT_RECLAIM_BATCH;

		private int reapBatch = DEFAULT_REAP_BATCH;

		private int enqueueChunk = DEFAULT_ENQUEUE_CHUNK;

		private Duration resultRetention = DEFAULT_RESULT_RETENTION;

		private int maxResultBytes = DEFAULT_MAX_RESULT_BYTES;

		private Duration batchRetention = DEFAULT_BATCH_RETENTION;

		private int defaultGroupConcurrency = DEFAULT_GROUP_CONCURRENCY;

		private final Map<String, Integer> groupConcurrency = new HashMap<>();

		private final Map<String, Integer> partitions = new HashMap<>();

		private final Map<String, RateLimit> rateLimits = new HashMap<>();

		private Builder() {
		}

		/**
		 * Prefix of every Redis key: letters, digits, '.', '_' or '-'.
		 * @param keyPrefix the prefix
		 * @return this builder
		 */
		public Builder keyPrefix(String keyPrefix) {
			this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
			return this;
		}

		/**
		 * Identity recorded on leases this process holds: 1 to 200 characters, no '#'.
		 * @param workerId the worker id, or {@code null} for {@link QueueSettings#defaultWorkerId()}
		 * @return this builder
		 */
		public Builder workerId(@Nullable String workerId) {
			this.workerId = workerId;
			return this;
		}

		/**
		 * Largest serialized payload accepted at enqueue, positive.
		 * @param maxPayloadBytes the limit in bytes
		 * @return this builder
		 */
		public Builder maxPayloadBytes(int maxPayloadBytes) {
			this.maxPayloadBytes = maxPayloadBytes;
			return this;
		}

		/**
		 * Attempts a job gets when its enqueue options name none, from 1 to
		 * {@value JobOptions#MAX_ATTEMPTS_LIMIT}.
		 * @param defaultMaxAttempts the attempts
		 * @return this builder
		 */
		public Builder defaultMaxAttempts(int defaultMaxAttempts) {
			this.defaultMaxAttempts = defaultMaxAttempts;
			return this;
		}

		/**
		 * How long completed jobs are kept; zero deletes them at once.
		 * @param completedRetention the retention
		 * @return this builder
		 */
		public Builder completedRetention(Duration completedRetention) {
			this.completedRetention = Objects.requireNonNull(completedRetention, "completedRetention");
			return this;
		}

		/**
		 * How long dead jobs are kept; zero keeps them until purged.
		 * @param deadRetention the retention
		 * @return this builder
		 */
		public Builder deadRetention(Duration deadRetention) {
			this.deadRetention = Objects.requireNonNull(deadRetention, "deadRetention");
			return this;
		}

		/**
		 * Most expired leases a single reserve call takes back, from 1 to
		 * {@value QueueSettings#MAX_BATCH}.
		 * @param reclaimBatch the batch
		 * @return this builder
		 */
		public Builder reclaimBatch(int reclaimBatch) {
			this.reclaimBatch = reclaimBatch;
			return this;
		}

		/**
		 * Most jobs a reaper pass handles per queue and step, from 1 to
		 * {@value QueueSettings#MAX_BATCH}.
		 * @param reapBatch the batch
		 * @return this builder
		 */
		public Builder reapBatch(int reapBatch) {
			this.reapBatch = reapBatch;
			return this;
		}

		/**
		 * Most jobs sent in one script call by a bulk enqueue, positive.
		 * @param enqueueChunk the chunk size
		 * @return this builder
		 */
		public Builder enqueueChunk(int enqueueChunk) {
			this.enqueueChunk = enqueueChunk;
			return this;
		}

		/**
		 * How long a handler's result is kept after its job completed; zero stores none.
		 * @param resultRetention the retention, at most 3650 days
		 * @return this builder
		 */
		public Builder resultRetention(Duration resultRetention) {
			this.resultRetention = Objects.requireNonNull(resultRetention, "resultRetention");
			return this;
		}

		/**
		 * Largest serialized handler result stored, positive.
		 * @param maxResultBytes the limit in bytes
		 * @return this builder
		 */
		public Builder maxResultBytes(int maxResultBytes) {
			this.maxResultBytes = maxResultBytes;
			return this;
		}

		/**
		 * How long a finished batch's status and list of sub-jobs are kept, from 1 ms to 3650 days.
		 * @param batchRetention the retention
		 * @return this builder
		 */
		public Builder batchRetention(Duration batchRetention) {
			this.batchRetention = Objects.requireNonNull(batchRetention, "batchRetention");
			return this;
		}

		/**
		 * How many jobs of one group run at once in queues without a setting of their own, from 1
		 * to {@value QueueSettings#MAX_CONCURRENCY_CAP}; 1 by default (one at a time, in order).
		 * @param groupConcurrency the concurrency
		 * @return this builder
		 */
		public Builder defaultGroupConcurrency(int groupConcurrency) {
			this.defaultGroupConcurrency = groupConcurrency;
			return this;
		}

		/**
		 * How many jobs of one group of the given queue run at once, from 1 to
		 * {@value QueueSettings#MAX_CONCURRENCY_CAP}.
		 * @param queue the queue name
		 * @param groupConcurrency the concurrency
		 * @return this builder
		 */
		public Builder groupConcurrency(String queue, int groupConcurrency) {
			this.groupConcurrency.put(Objects.requireNonNull(queue, "queue"), groupConcurrency);
			return this;
		}

		/**
		 * Spread the given queue over {@code partitions} partitions, from 1 (not partitioned) to
		 * {@value QueueSettings#MAX_PARTITIONS}. See {@link QueueSettings#partitions(String)}.
		 * @param queue the queue name
		 * @param partitions the partition count
		 * @return this builder
		 */
		public Builder partitions(String queue, int partitions) {
			this.partitions.put(QueueNames.validate(Objects.requireNonNull(queue, "queue")), partitions);
			return this;
		}

		/**
		 * Limit how many jobs of the given queue are handed out in any window, by every consumer
		 * together; {@code null} removes the limit. See {@link QueueSettings#rateLimit(String)}. A
		 * partitioned queue cannot have one (its partitions keep no common window).
		 * @param queue the queue name
		 * @param rateLimit the limit, or {@code null}
		 * @return this builder
		 */
		public Builder rateLimit(String queue, @Nullable RateLimit rateLimit) {
			QueueNames.validate(Objects.requireNonNull(queue, "queue"));
			if (rateLimit != null) {
				this.rateLimits.put(queue, rateLimit);
			}
			else {
				this.rateLimits.remove(queue);
			}
			return this;
		}

		/**
		 * The settings.
		 * @return the settings
		 * @throws IllegalArgumentException if a value breaks its rule
		 */
		public QueueSettings build() {
			QueueNames.validatePrefix(this.keyPrefix);
			String workerId = WorkerIds.validate((this.workerId != null) ? this.workerId : defaultWorkerId());
			positive("Max payload size", this.maxPayloadBytes);
			if (this.defaultMaxAttempts < 1 || this.defaultMaxAttempts > JobOptions.MAX_ATTEMPTS_LIMIT) {
				throw new IllegalArgumentException("Default max attempts " + this.defaultMaxAttempts
						+ " is out of range: it must be from 1 to " + JobOptions.MAX_ATTEMPTS_LIMIT);
			}
			notNegative("Completed-job retention", this.completedRetention);
			notNegative("Dead-job retention", this.deadRetention);
			batch("Reclaim batch", this.reclaimBatch);
			batch("Reap batch", this.reapBatch);
			positive("Enqueue chunk", this.enqueueChunk);
			notNegative("Result retention", this.resultRetention);
			atMost("Result retention", this.resultRetention);
			positive("Max result size", this.maxResultBytes);
			if (this.batchRetention.compareTo(Duration.ofMillis(1)) < 0) {
				throw new IllegalArgumentException(
						"Batch retention " + this.batchRetention + " is out of range: it must be 1 ms or more");
			}
			atMost("Batch retention", this.batchRetention);
			cap("Default group concurrency", this.defaultGroupConcurrency);
			this.groupConcurrency.forEach((queue, value) -> cap("Group concurrency of queue '" + queue + "'", value));
			this.partitions.forEach((queue, value) -> {
				if (value < 1 || value > MAX_PARTITIONS) {
					throw new IllegalArgumentException("Partitions " + value + " of queue '" + queue
							+ "' are out of range: they must be from 1 to " + MAX_PARTITIONS);
				}
			});
			this.rateLimits.keySet().forEach((queue) -> {
				if (this.partitions.getOrDefault(queue, 1) > 1) {
					throw new IllegalArgumentException("Queue '" + queue + "' cannot have a rate limit: it is spread over "
							+ this.partitions.get(queue) + " partitions, which keep no common window");
				}
			});
			return new QueueSettings(this, workerId);
		}

		private static void batch(String what, int value) {
			if (value < 1 || value > MAX_BATCH) {
				throw new IllegalArgumentException(
						what + " " + value + " is out of range: it must be from 1 to " + MAX_BATCH);
			}
		}

		private static void cap(String what, int value) {
			if (value < 1 || value > MAX_CONCURRENCY_CAP) {
				throw new IllegalArgumentException(
						what + " " + value + " is out of range: it must be from 1 to " + MAX_CONCURRENCY_CAP);
			}
		}

		private static void atMost(String what, Duration value) {
			if (value.compareTo(JobOptions.MAX_WINDOW) > 0) {
				throw new IllegalArgumentException(what + " " + value + " is out of range: it must be at most 3650 days");
			}
		}

		private static void positive(String what, int value) {
			if (value <= 0) {
				throw new IllegalArgumentException(what + " " + value + " must be positive");
			}
		}

		private static void notNegative(String what, Duration value) {
			if (value.isNegative()) {
				throw new IllegalArgumentException(what + " " + value + " must not be negative");
			}
		}

	}

}
