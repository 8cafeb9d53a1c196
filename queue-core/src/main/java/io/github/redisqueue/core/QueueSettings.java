package io.github.redisqueue.core;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;


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

	private final Map<String, PerQueueSettings> queues;

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
		Map<String, PerQueueSettings> queues = new HashMap<>(builder.queues);
		queues.values().removeIf(PerQueueSettings.DEFAULT::equals);
		this.queues = Map.copyOf(queues);
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
		builder.queues.putAll(this.queues);
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
		Integer concurrency = queue(queue).groupConcurrency();
		return (concurrency != null) ? concurrency : this.defaultGroupConcurrency;
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
		return queue(queue).partitions();
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
		return queue(queue).rateLimit();
	}

	/**
	 * The queues spread over more than one partition, with their partition counts.
	 * @return queue name to partition count
	 */
	public Map<String, Integer> partitionedQueues() {
		return Map.copyOf(PerQueueSettings.collect(this.queues, PerQueueSettings::partitions, (value) -> value > 1));
	}

	/**
	 * The settings of one queue.
	 * @param queue the queue name
	 * @return its settings, {@link PerQueueSettings#DEFAULT} when it has none of its own
	 */
	public PerQueueSettings queue(String queue) {
		return this.queues.getOrDefault(queue, PerQueueSettings.DEFAULT);
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
		return WorkerIds.defaultWorkerId();
	}

	static String defaultWorkerId(@Nullable String resolvedHost, @Nullable String hostVariable, long pid) {
		return WorkerIds.defaultWorkerId(resolvedHost, hostVariable, pid);
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof QueueSettings that && values().equals(that.values()));
	}

	@Override
	public int hashCode() {
		return values().hashCode();
	}

	private List<Object> values() {
		return List.of(this.keyPrefix, this.workerId, this.maxPayloadBytes, this.defaultMaxAttempts,
				this.completedRetention, this.deadRetention, this.reclaimBatch, this.reapBatch, this.enqueueChunk,
				this.resultRetention, this.maxResultBytes, this.batchRetention, this.defaultGroupConcurrency,
				this.queues);
	}

	@Override
	public String toString() {
		return "QueueSettings[keyPrefix=" + this.keyPrefix + ", workerId=" + this.workerId + ", maxPayloadBytes="
				+ this.maxPayloadBytes + ", defaultMaxAttempts=" + this.defaultMaxAttempts + ", completedRetention="
				+ this.completedRetention + ", deadRetention=" + this.deadRetention + ", reclaimBatch="
				+ this.reclaimBatch + ", reapBatch=" + this.reapBatch + ", enqueueChunk=" + this.enqueueChunk
				+ ", resultRetention=" + this.resultRetention + ", maxResultBytes=" + this.maxResultBytes
				+ ", batchRetention=" + this.batchRetention + ", defaultGroupConcurrency=" + this.defaultGroupConcurrency
				+ ", groupConcurrency=" + PerQueueSettings.collect(this.queues, PerQueueSettings::groupConcurrency,
						(value) -> true)
				+ ", partitions=" + partitionedQueues() + ", rateLimits="
				+ PerQueueSettings.collect(this.queues, PerQueueSettings::rateLimit, (value) -> true) + "]";
	}

	/**
	 * Builder for {@link QueueSettings}. The setters take any value; {@link #build()} checks
	 * them.
	 */
	public static final class Builder {

		String keyPrefix = DEFAULT_KEY_PREFIX;

		@Nullable String workerId;

		int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;

		int defaultMaxAttempts = DEFAULT_MAX_ATTEMPTS;

		Duration completedRetention = DEFAULT_COMPLETED_RETENTION;

		Duration deadRetention = DEFAULT_DEAD_RETENTION;

		int reclaimBatch = DEFAULT_RECLAIM_BATCH;

		int reapBatch = DEFAULT_REAP_BATCH;

		int enqueueChunk = DEFAULT_ENQUEUE_CHUNK;

		Duration resultRetention = DEFAULT_RESULT_RETENTION;

		int maxResultBytes = DEFAULT_MAX_RESULT_BYTES;

		Duration batchRetention = DEFAULT_BATCH_RETENTION;

		int defaultGroupConcurrency = DEFAULT_GROUP_CONCURRENCY;

		final Map<String, PerQueueSettings> queues = new HashMap<>();

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
			return change(Objects.requireNonNull(queue, "queue"), (settings) -> settings.withGroupConcurrency(groupConcurrency));
		}

		/**
		 * Spread the given queue over {@code partitions} partitions, from 1 (not partitioned) to
		 * {@value QueueSettings#MAX_PARTITIONS}. See {@link QueueSettings#partitions(String)}.
		 * @param queue the queue name
		 * @param partitions the partition count
		 * @return this builder
		 */
		public Builder partitions(String queue, int partitions) {
			return change(QueueNames.validate(Objects.requireNonNull(queue, "queue")),
					(settings) -> settings.withPartitions(partitions));
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
			return change(queue, (settings) -> settings.withRateLimit(rateLimit));
		}

		/**
		 * All the settings of the given queue at once, replacing those it had.
		 * @param queue the queue name
		 * @param settings its settings
		 * @return this builder
		 */
		public Builder queue(String queue, PerQueueSettings settings) {
			this.queues.put(QueueNames.validate(Objects.requireNonNull(queue, "queue")),
					Objects.requireNonNull(settings, "settings"));
			return this;
		}

		private Builder change(String queue, UnaryOperator<PerQueueSettings> change) {
			this.queues.put(queue, change.apply(this.queues.getOrDefault(queue, PerQueueSettings.DEFAULT)));
			return this;
		}

		/**
		 * The settings.
		 * @return the settings
		 * @throws IllegalArgumentException if a value breaks its rule
		 */
		public QueueSettings build() {
			String workerId = QueueSettingsChecks.check(this);
			return new QueueSettings(this, workerId);
		}

	}

}
