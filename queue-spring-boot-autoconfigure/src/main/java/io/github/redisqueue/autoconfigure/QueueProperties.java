package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.lease.QueueReaper;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration properties of redis-queue, under {@code queue.}. The health indicator and the
 * meters have settings of their own, next to their auto-configurations
 * ({@code queue.health.*}, {@code queue.metrics.*}).
 *
 * <p>A listener's settings come, from weakest to strongest, from the core defaults of
 * {@link io.github.redisqueue.listener.ContainerOptions}, then {@code queue.listener.*}, then
 * {@code queue.queues.<name>.*} for its queue, then the attributes set on its
 * {@code @QueueListener}; each level changes only what it sets.
 *
 * <p>The properties check themselves when they are bound: a value that cannot work (such as a
 * reaper batch above 10,000, a lease above 7 days, or a listener's concurrency plus prefetch
 * above 10,000) stops the application at startup with the property, its value and the allowed
 * range.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("queue")
public class QueueProperties implements Validator {

	private static final Logger logger = LoggerFactory.getLogger(QueueProperties.class);

	/**
	 * Prefix of every Redis key of the queues.
	 */
	private String keyPrefix = QueueSettings.DEFAULT_KEY_PREFIX;

	/**
	 * Identity recorded on the leases this application holds. Give each instance a stable value
	 * (such as its pod name) so that a restarted instance takes back its unfinished jobs at once;
	 * when unset, host name and process id.
	 */
	private @Nullable String workerId;

	/**
	 * Largest serialized payload accepted at enqueue.
	 */
	private DataSize maxPayloadSize = DataSize.ofBytes(QueueSettings.DEFAULT_MAX_PAYLOAD_BYTES);

	/**
	 * Attempts a job gets when its enqueue options name none.
	 */
	private int defaultMaxAttempts = QueueSettings.DEFAULT_MAX_ATTEMPTS;

	/**
	 * Longest wait of an enqueue call for Redis; past it the call fails with a QueueException
	 * (it may still have created its jobs: retry with an idempotency key).
	 */
	private Duration enqueueTimeout = QueueTemplate.DEFAULT_ENQUEUE_TIMEOUT;

	/**
	 * How long the value a @QueueListener method returns is kept as its job's result (for
	 * QueueOperations.result and the results of a batch); zero stores no results.
	 */
	private Duration resultRetention = QueueSettings.DEFAULT_RESULT_RETENTION;

	/**
	 * Largest serialized result stored; a larger one is logged and not stored, and its job still
	 * completes.
	 */
	private DataSize maxResultSize = DataSize.ofBytes(QueueSettings.DEFAULT_MAX_RESULT_BYTES);

	/**
	 * How long a finished batch's status and list of sub-jobs are kept (after its completion
	 * job, if any, was enqueued).
	 */
	private Duration batchRetention = QueueSettings.DEFAULT_BATCH_RETENTION;

	/**
	 * How many jobs of one group run at once, in queues without a group-concurrency of their
	 * own.
	 */
	private int defaultGroupConcurrency = QueueSettings.DEFAULT_GROUP_CONCURRENCY;

	/**
	 * Settings of every listener container; unset values keep the core defaults.
	 */
	@NestedConfigurationProperty
	private final QueueListenerProperties listener = new QueueListenerProperties();

	/**
	 * Settings per queue name: its listeners' settings (unset values keep queue.listener.*, and
	 * attributes set on @QueueListener override them) and its group concurrency.
	 */
	private final Map<String, Queue> queues = new LinkedHashMap<>();

	/**
	 * Recurring jobs, by schedule name: each enqueues one job per cron tick to its queue,
	 * cluster-wide, whatever the number of instances running it.
	 */
	private final Map<String, Schedule> schedules = new LinkedHashMap<>();

	private final Reaper reaper = new Reaper();

	private final Retention retention = new Retention();

	/**
	 * A Redis of the queues' own, and how the scripts run on it.
	 */
	@NestedConfigurationProperty
	private final QueueRedisProperties redis = new QueueRedisProperties();

	private final Workers workers = new Workers();

	private final RedisCheck redisCheck = new RedisCheck();

	private final DurableEnqueue durableEnqueue = new DurableEnqueue();

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public @Nullable String getWorkerId() {
		return this.workerId;
	}

	public void setWorkerId(@Nullable String workerId) {
		this.workerId = workerId;
	}

	public DataSize getMaxPayloadSize() {
		return this.maxPayloadSize;
	}

	public void setMaxPayloadSize(DataSize maxPayloadSize) {
		this.maxPayloadSize = maxPayloadSize;
	}

	public int getDefaultMaxAttempts() {
		return this.defaultMaxAttempts;
	}

	public void setDefaultMaxAttempts(int defaultMaxAttempts) {
		this.defaultMaxAttempts = defaultMaxAttempts;
	}

	/** @deprecated since 0.1.0 for removal in 0.2.0 in favour of {@link #getDefaultMaxAttempts()} */
	@Deprecated(since = "0.1.0", forRemoval = true)
	@DeprecatedConfigurationProperty(replacement = "queue.default-max-attempts", since = "0.1.0")
	public int getMaxAttempts() {
		return getDefaultMaxAttempts();
	}

	/** @deprecated since 0.1.0 for removal in 0.2.0 in favour of {@link #setDefaultMaxAttempts(int)} */
	@Deprecated(since = "0.1.0", forRemoval = true)
	public void setMaxAttempts(int maxAttempts) {
		deprecated("queue.max-attempts", "queue.default-max-attempts");
		setDefaultMaxAttempts(maxAttempts);
	}

	public Duration getEnqueueTimeout() {
		return this.enqueueTimeout;
	}

	public void setEnqueueTimeout(Duration enqueueTimeout) {
		this.enqueueTimeout = enqueueTimeout;
	}

	public Duration getResultRetention() {
		return this.resultRetention;
	}

	public void setResultRetention(Duration resultRetention) {
		this.resultRetention = resultRetention;
	}

	public DataSize getMaxResultSize() {
		return this.maxResultSize;
	}

	public void setMaxResultSize(DataSize maxResultSize) {
		this.maxResultSize = maxResultSize;
	}

	public Duration getBatchRetention() {
		return this.batchRetention;
	}

	public void setBatchRetention(Duration batchRetention) {
		this.batchRetention = batchRetention;
	}

	public int getDefaultGroupConcurrency() {
		return this.defaultGroupConcurrency;
	}

	public void setDefaultGroupConcurrency(int defaultGroupConcurrency) {
		this.defaultGroupConcurrency = defaultGroupConcurrency;
	}

	public QueueListenerProperties getListener() {
		return this.listener;
	}

	public Map<String, Queue> getQueues() {
		return this.queues;
	}

	public Map<String, Schedule> getSchedules() {
		return this.schedules;
	}

	public Reaper getReaper() {
		return this.reaper;
	}

	public Retention getRetention() {
		return this.retention;
	}

	public QueueRedisProperties getRedis() {
		return this.redis;
	}

	public Workers getWorkers() {
		return this.workers;
	}

	public RedisCheck getRedisCheck() {
		return this.redisCheck;
	}

	public DurableEnqueue getDurableEnqueue() {
		return this.durableEnqueue;
	}

	@Override
	public boolean supports(Class<?> type) {
		return QueueProperties.class.isAssignableFrom(type);
	}

	@Override
	public void validate(Object target, Errors errors) {
		QueuePropertiesValidator.validate((QueueProperties) target, errors);
	}

	static void deprecated(String property, String replacement) {
		logger.warn("Property '{}' is deprecated and will be removed in 0.2.0: use '{}' instead", property,
				replacement);
	}

	/**
	 * Settings of one queue ({@code queue.queues.<name>}): the settings of its listeners, each
	 * left unset keeping {@code queue.listener.*}, how many jobs of one of its groups run at
	 * once, over how many partitions it is spread, and its rate limit.
	 */
	public static class Queue extends QueueListenerProperties {

		/**
		 * Over how many partitions the queue is spread, from 1 (the default) to 64: each partition is a queue of
		 * its own keys and hash tag, placed on its own share of the Redis Cluster slots. Producers
		 * and consumers of the queue must agree on it; it cannot change while the queue holds jobs.
		 */
		private int partitions = 1;

		public int getPartitions() {
			return this.partitions;
		}

		public void setPartitions(int partitions) {
			this.partitions = partitions;
		}

		/**
		 * How many jobs of one group of this queue run at once; when unset,
		 * queue.default-group-concurrency.
		 */
		private @Nullable Integer groupConcurrency;

		public @Nullable Integer getGroupConcurrency() {
			return this.groupConcurrency;
		}

		public void setGroupConcurrency(@Nullable Integer groupConcurrency) {
			this.groupConcurrency = groupConcurrency;
		}

		/**
		 * Most jobs of this queue handed out in any window, by all its consumers together, written
		 * <permits>/<window> such as 100/1s or 1000/1m (permits 1 to 10000, window 1ms to 1d); unset
		 * for no limit. Every application consuming the queue must set the same value.
		 */
		private @Nullable String rateLimit;

		public @Nullable String getRateLimit() {
			return this.rateLimit;
		}

		public void setRateLimit(@Nullable String rateLimit) {
			this.rateLimit = rateLimit;
		}

	}

	/**
	 * One recurring job ({@code queue.schedules.<name>}): its cron expression, the queue its jobs
	 * go to, their payload, the time zone and what happens to missed ticks.
	 */
	public static class Schedule {

		/** Cron expression, six fields, seconds first (for example "0 * * * * *": every minute). */
		private @Nullable String cron;

		/** Queue the jobs go to. */
		private @Nullable String queue;

		/**
		 * Payload of every job, enqueued as is (its UTF-8 bytes are the job's payload): JSON text for the
		 * default JSON payloads, such as {"to":"team@example.com"}.
		 */
		private String payload = "";

		/** Time zone the cron expression is read in; the JVM's default zone when unset. */
		private @Nullable String zone;

		/**
		 * What happens to missed ticks: fire-once (one job for the latest missed tick) or skip (none).
		 */
		private String missed = "fire-once";

		/** How late after its tick (Redis server clock) a tick may fire and still be on time. */
		private Duration grace = Duration.ofSeconds(10);

		public @Nullable String getCron() {
			return this.cron;
		}

		public void setCron(@Nullable String cron) {
			this.cron = cron;
		}

		public @Nullable String getQueue() {
			return this.queue;
		}

		public void setQueue(@Nullable String queue) {
			this.queue = queue;
		}

		public String getPayload() {
			return this.payload;
		}

		public void setPayload(String payload) {
			this.payload = payload;
		}

		public @Nullable String getZone() {
			return this.zone;
		}

		public void setZone(@Nullable String zone) {
			this.zone = zone;
		}

		public String getMissed() {
			return this.missed;
		}

		public void setMissed(String missed) {
			this.missed = missed;
		}

		public Duration getGrace() {
			return this.grace;
		}

		public void setGrace(Duration grace) {
			this.grace = grace;
		}

	}

	/**
	 * The reaper: returns expired leases, promotes due jobs, purges old jobs.
	 */
	public static class Reaper {

		/**
		 * Whether the reaper runs in this application. Correctness does not depend on it.
		 */
		private boolean enabled = true;

		/**
		 * Time between reaper passes.
		 */
		private Duration interval = QueueReaper.DEFAULT_INTERVAL;

		/**
		 * Most jobs a reaper pass handles per queue and step.
		 */
		private int batch = QueueSettings.DEFAULT_REAP_BATCH;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

		public int getBatch() {
			return this.batch;
		}

		public void setBatch(int batch) {
			this.batch = batch;
		}

	}

	/**
	 * How long finished jobs stay in Redis.
	 */
	public static class Retention {

		/**
		 * How long completed jobs are kept; zero deletes them when acknowledged.
		 */
		private Duration completed = QueueSettings.DEFAULT_COMPLETED_RETENTION;

		/**
		 * How long dead jobs are kept; zero keeps them until purged.
		 */
		private Duration dead = QueueSettings.DEFAULT_DEAD_RETENTION;

		public Duration getCompleted() {
			return this.completed;
		}

		public void setCompleted(Duration completed) {
			this.completed = completed;
		}

		public Duration getDead() {
			return this.dead;
		}

		public void setDead(Duration dead) {
			this.dead = dead;
		}

	}

	/**
	 * The worker registry: each application records itself with a heartbeat.
	 */
	public static class DurableEnqueue {

		/**
		 * Replicas that must acknowledge every enqueue (Redis WAIT on the same connection) before
		 * it returns; 0 turns the wait off.
		 */
		private int replicas;

		/**
		 * Longest wait for those replicas; past it the enqueue fails with a QueueException (its
		 * jobs exist on the master: retry with an idempotency key).
		 */
		private Duration timeout = Duration.ofSeconds(1);

		public int getReplicas() {
			return this.replicas;
		}

		public void setReplicas(int replicas) {
			this.replicas = replicas;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	public static class Workers {

		/**
		 * Whether this application records itself in the worker registry.
		 */
		private boolean enabled = true;

		/**
		 * Time between heartbeats.
		 */
		private Duration heartbeatInterval = Duration.ofSeconds(10);

		/**
		 * How long a worker stays listed after its last heartbeat.
		 */
		private Duration timeToLive = Duration.ofSeconds(30);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getHeartbeatInterval() {
			return this.heartbeatInterval;
		}

		public void setHeartbeatInterval(Duration heartbeatInterval) {
			this.heartbeatInterval = heartbeatInterval;
		}

		public Duration getTimeToLive() {
			return this.timeToLive;
		}

		public void setTimeToLive(Duration timeToLive) {
			this.timeToLive = timeToLive;
		}

	}

	/**
	 * The startup check of the Redis settings the queues depend on.
	 */
	public static class RedisCheck {

		/**
		 * Whether to read the Redis settings once at startup (CONFIG GET, or INFO where CONFIG is
		 * not allowed) and log a warning when maxmemory-policy is not noeviction or nothing is
		 * persisted.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

}
