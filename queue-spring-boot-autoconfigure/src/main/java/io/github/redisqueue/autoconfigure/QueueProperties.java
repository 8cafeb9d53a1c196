package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.ContainerOptions;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration properties of redis-queue, under {@code queue.}.
 *
 * <p>A listener's settings come, from weakest to strongest, from {@code queue.listener.*},
 * then {@code queue.queues.<name>.*} for its queue, then the attributes set on its
 * {@code @QueueListener}.
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
	private int maxAttempts = QueueSettings.DEFAULT_MAX_ATTEMPTS;

	/**
	 * Longest wait of an enqueue call for Redis; past it the call fails with a QueueException
	 * (it may still have created its jobs: retry with an idempotency key).
	 */
	private Duration enqueueTimeout = QueueTemplate.DEFAULT_ENQUEUE_TIMEOUT;

	private final Listener listener = new Listener();

	private final Reaper reaper = new Reaper();

	private final Retention retention = new Retention();

	private final Redis redis = new Redis();

	private final Health health = new Health();

	private final Workers workers = new Workers();

	private final Metrics metrics = new Metrics();

	private final RedisCheck redisCheck = new RedisCheck();

	/**
	 * Per-queue listener settings, by queue name; they override queue.listener.* and are
	 * overridden by attributes set on @QueueListener.
	 */
	private final Map<String, QueueListenerSettings> queues = new LinkedHashMap<>();

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

	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(int maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public Duration getEnqueueTimeout() {
		return this.enqueueTimeout;
	}

	public void setEnqueueTimeout(Duration enqueueTimeout) {
		this.enqueueTimeout = enqueueTimeout;
	}

	public Listener getListener() {
		return this.listener;
	}

	public Reaper getReaper() {
		return this.reaper;
	}

	public Retention getRetention() {
		return this.retention;
	}

	public Redis getRedis() {
		return this.redis;
	}

	public Health getHealth() {
		return this.health;
	}

	public Workers getWorkers() {
		return this.workers;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public RedisCheck getRedisCheck() {
		return this.redisCheck;
	}

	public Map<String, QueueListenerSettings> getQueues() {
		return this.queues;
	}

	@Override
	public boolean supports(Class<?> type) {
		return QueueProperties.class.isAssignableFrom(type);
	}

	@Override
	public void validate(Object target, Errors errors) {
		QueuePropertiesValidator.validate((QueueProperties) target, errors);
	}

	/**
	 * Default settings of every listener container.
	 */
	public static class Listener {

		/**
		 * How many jobs of one listener run at once.
		 */
		private int concurrency = ContainerOptions.DEFAULT_CONCURRENCY;

		/**
		 * Jobs reserved beyond the concurrency, waiting for a free thread, so that each reserve
		 * call carries more jobs; when unset, as many as the concurrency.
		 */
		private @Nullable Integer prefetch;

		/**
		 * Lease of each reserved job; leases of running jobs are extended every third of it.
		 */
		private Duration lease = ContainerOptions.DEFAULT_LEASE;

		/**
		 * Longest blocking wait on an idle queue before the next reserve.
		 */
		private Duration pollInterval = ContainerOptions.DEFAULT_POLL_INTERVAL;

		/**
		 * How long a stopping container waits for running jobs before giving their leases back.
		 */
		private Duration shutdownTimeout = ContainerOptions.DEFAULT_SHUTDOWN_TIMEOUT;

		/**
		 * Attempts after which a failing job is dead-lettered, overriding the job's own; when
		 * unset, the job's own.
		 */
		private @Nullable Integer maxAttempts;

		private final BackOff backoff = new BackOff();

		/**
		 * When jobs are acknowledged.
		 */
		private AcknowledgementMode ackMode = AcknowledgementMode.ON_SUCCESS;

		/**
		 * Whether listener containers start with the application.
		 */
		private boolean autoStartup = true;

		public int getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(int concurrency) {
			this.concurrency = concurrency;
		}

		public Duration getLease() {
			return this.lease;
		}

		public void setLease(Duration lease) {
			this.lease = lease;
		}

		public @Nullable Integer getPrefetch() {
			return this.prefetch;
		}

		public void setPrefetch(@Nullable Integer prefetch) {
			this.prefetch = prefetch;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
		}

		public @Nullable Integer getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(@Nullable Integer maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public BackOff getBackoff() {
			return this.backoff;
		}

		public AcknowledgementMode getAckMode() {
			return this.ackMode;
		}

		public void setAckMode(AcknowledgementMode ackMode) {
			this.ackMode = ackMode;
		}

		public boolean isAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

	}

	/**
	 * Exponential back-off between attempts of a failed job.
	 */
	public static class BackOff {

		/**
		 * Delay before the second attempt.
		 */
		private Duration initial = ContainerOptions.DEFAULT_BACKOFF_INITIAL;

		/**
		 * Factor between successive delays.
		 */
		private double multiplier = ContainerOptions.DEFAULT_BACKOFF_MULTIPLIER;

		/**
		 * Longest delay.
		 */
		private Duration max = ContainerOptions.DEFAULT_BACKOFF_MAX;

		public Duration getInitial() {
			return this.initial;
		}

		public void setInitial(Duration initial) {
			this.initial = initial;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMax() {
			return this.max;
		}

		public void setMax(Duration max) {
			this.max = max;
		}

	}

	/**
	 * Settings of the listeners of one queue; unset values keep queue.listener.*.
	 */
	public static class QueueListenerSettings {

		/**
		 * How many jobs of one listener run at once.
		 */
		private @Nullable Integer concurrency;

		/**
		 * Jobs reserved beyond the concurrency, waiting for a free thread.
		 */
		private @Nullable Integer prefetch;

		/**
		 * Lease of each reserved job.
		 */
		private @Nullable Duration lease;

		/**
		 * Longest blocking wait on an idle queue.
		 */
		private @Nullable Duration pollInterval;

		/**
		 * How long a stopping container waits for running jobs.
		 */
		private @Nullable Duration shutdownTimeout;

		/**
		 * Attempts after which a failing job is dead-lettered.
		 */
		private @Nullable Integer maxAttempts;

		/**
		 * Delay before the second attempt.
		 */
		private @Nullable Duration backoffInitial;

		/**
		 * Factor between successive retry delays.
		 */
		private @Nullable Double backoffMultiplier;

		/**
		 * Longest retry delay.
		 */
		private @Nullable Duration backoffMax;

		/**
		 * When jobs are acknowledged.
		 */
		private @Nullable AcknowledgementMode ackMode;

		/**
		 * Whether the listener containers of this queue start with the application.
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

		public @Nullable Duration getBackoffInitial() {
			return this.backoffInitial;
		}

		public void setBackoffInitial(@Nullable Duration backoffInitial) {
			this.backoffInitial = backoffInitial;
		}

		public @Nullable Double getBackoffMultiplier() {
			return this.backoffMultiplier;
		}

		public void setBackoffMultiplier(@Nullable Double backoffMultiplier) {
			this.backoffMultiplier = backoffMultiplier;
		}

		public @Nullable Duration getBackoffMax() {
			return this.backoffMax;
		}

		public void setBackoffMax(@Nullable Duration backoffMax) {
			this.backoffMax = backoffMax;
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
		private Duration interval = Duration.ofSeconds(5);

		/**
		 * Most jobs a reaper pass handles per queue and step.
		 */
		private int batch = 1000;

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
		private Duration completed = Duration.ZERO;

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
	 * A Redis of the queues' own, instead of the application's spring.data.redis connection.
	 */
	public static class Redis {

		/**
		 * Redis URL for the queues, such as redis://user:secret@host:6379/0; when unset the
		 * application's RedisConnectionFactory is used.
		 */
		private @Nullable String url;

		public @Nullable String getUrl() {
			return this.url;
		}

		public void setUrl(@Nullable String url) {
			this.url = url;
		}

	}


	/**
	 * Thresholds of the queue health indicator.
	 */
	public static class Health {

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

		public @Nullable Duration getMaxHeadAge() {
			return this.maxHeadAge;
		}

		public void setMaxHeadAge(@Nullable Duration maxHeadAge) {
			this.maxHeadAge = maxHeadAge;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

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

		public String getThresholdStatus() {
			return this.thresholdStatus;
		}

		public void setThresholdStatus(String thresholdStatus) {
			this.thresholdStatus = thresholdStatus;
		}

	}

	/**
	 * The worker registry: each application records itself with a heartbeat.
	 */
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
	 * Queue gauges.
	 */
	public static class Metrics {

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
