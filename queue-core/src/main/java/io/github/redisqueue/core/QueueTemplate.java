package io.github.redisqueue.core;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.github.redisqueue.support.converter.JobConversionException;
import io.github.redisqueue.support.converter.JobSerializer;
import io.github.redisqueue.support.micrometer.QueueEnqueueContext;
import io.github.redisqueue.support.micrometer.QueueEnqueueObservationConvention;
import io.github.redisqueue.support.micrometer.QueueObservation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * The Redis implementation of {@link QueueOperations} and {@link QueueAdminOperations}. Thread
 * safe; one instance per application is enough. Every state change of a job is one Lua script,
 * with times taken from the Redis server clock inside the script.
 *
 * <pre class="code">
 * QueueTemplate queues = new QueueTemplate(connectionFactory);
 * queues.enqueue("emails", new Email("ada@example.com", "Welcome"));
 *
 * for (Job&lt;Email&gt; job : queues.reserve("emails", 10, Duration.ofMinutes(5), Email.class)) {
 *     send(job.payload());
 *     queues.complete("emails", job.ref());
 * }
 * </pre>
 *
 * @since 0.1.0
 */
public class QueueTemplate implements QueueOperations, QueueAdminOperations {

	/** Shortest lease accepted. */
	public static final Duration MIN_LEASE = Duration.ofMillis(10);

	/** Longest lease accepted. */
	public static final Duration MAX_LEASE = Duration.ofDays(7);

	/** Most jobs one reserve call may take. */
	public static final int MAX_RESERVE = 10_000;

	/** Longest wait for Redis to answer an enqueue, unless set otherwise. */
	public static final Duration DEFAULT_ENQUEUE_TIMEOUT = Duration.ofSeconds(5);

	private static final Logger logger = LoggerFactory.getLogger(QueueTemplate.class);

	private static final RedisSerializer<byte[]> BYTES = RedisSerializer.byteArray();

	private static final byte[] EMPTY = new byte[0];

	private static final byte[] RETRY = ascii("retry");

	private static final byte[] DEAD = ascii("dead");

	private static final byte[] PURGE = ascii("purge");

	private static final byte[] STARTED = ascii("started");

	private static final byte[] UNSTARTED = ascii("unstarted");

	private static final byte[] WORKER = ascii("worker");

	private static final byte[] ANY_TIME = ascii("+inf");

	private final RedisConnectionFactory connectionFactory;

	private final RedisTemplate<byte[], byte[]> redis;

	private final QueueScripts scripts;

	private final JobSerializer serializer;

	private final QueueSettings settings;

	private final ConcurrentMap<String, QueueKeys> keys = new ConcurrentHashMap<>();

	private final Set<String> registered = ConcurrentHashMap.newKeySet();

	private volatile boolean layoutChecked;

	private final Set<String> overviewQueues = new java.util.concurrent.ConcurrentSkipListSet<>();

	private volatile JobEvents events = JobEvents.NONE;

	private volatile ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private volatile @Nullable QueueEnqueueObservationConvention enqueueConvention;

	private volatile Duration enqueueTimeout = DEFAULT_ENQUEUE_TIMEOUT;

	/**
	 * A template with JSON payloads and default settings.
	 * @param connectionFactory the Redis connection factory
	 */
	public QueueTemplate(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, new JacksonJobSerializer(), QueueSettings.defaults());
	}

	/**
	 * A template.
	 * @param connectionFactory the Redis connection factory
	 * @param serializer payload and header serialization
	 * @param settings engine settings
	 */
	public QueueTemplate(RedisConnectionFactory connectionFactory, JobSerializer serializer, QueueSettings settings) {
		this(connectionFactory, serializer, settings, new QueueScripts());
	}

	/**
	 * A template with the given scripts holder (shared between templates, or a bean).
	 * @param connectionFactory the Redis connection factory
	 * @param serializer payload and header serialization
	 * @param settings engine settings
	 * @param scripts the scripts
	 */
	public QueueTemplate(RedisConnectionFactory connectionFactory, JobSerializer serializer, QueueSettings settings,
			QueueScripts scripts) {
		this.connectionFactory = connectionFactory;
		this.serializer = serializer;
		this.settings = settings;
		this.scripts = scripts;
		RedisTemplate<byte[], byte[]> template = new RedisTemplate<>();
		template.setConnectionFactory(connectionFactory);
		template.setEnableDefaultSerializer(false);
		template.setKeySerializer(BYTES);
		template.setValueSerializer(BYTES);
		template.setHashKeySerializer(BYTES);
		template.setHashValueSerializer(BYTES);
		template.afterPropertiesSet();
		this.redis = template;
	}

	/** The connection factory the template uses. */
	public RedisConnectionFactory getConnectionFactory() {
		return this.connectionFactory;
	}

	/** Where job outcomes are reported (for example outcome counters). */
	public void setJobEvents(JobEvents events) {
		this.events = events;
	}

	/**
	 * Observe each enqueue call as {@code queue.enqueue}; with tracing, the current trace
	 * context is written into the jobs' headers so that their handlers continue the trace.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
	}

	/** The registry enqueue calls are observed with ({@link ObservationRegistry#NOOP} by default). */
	public ObservationRegistry getObservationRegistry() {
		return this.observationRegistry;
	}

	/** Replace the default enqueue observation names and tags. */
	public void setEnqueueObservationConvention(@Nullable QueueEnqueueObservationConvention convention) {
		this.enqueueConvention = convention;
	}

	/**
	 * How long an enqueue call waits for Redis before it fails with a {@link QueueException}
	 * (with Lettuce; other drivers use their own command timeout). A call that timed out is
	 * cancelled if it was not sent yet, but one already sent may still have created its jobs:
	 * give jobs an {@link JobOptions.Builder#idempotencyKey(String) idempotency key} to retry such
	 * a call safely.
	 * @param enqueueTimeout from 1 ms to 10 minutes; 5 s by default
	 */
	public void setEnqueueTimeout(Duration enqueueTimeout) {
		if (enqueueTimeout.compareTo(Duration.ofMillis(1)) < 0 || enqueueTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
			throw new IllegalArgumentException(
					"Enqueue timeout " + enqueueTimeout + " is out of range: it must be from 1 ms to 10 minutes");
		}
		this.enqueueTimeout = enqueueTimeout;
	}

	/** How long an enqueue call waits for Redis. */
	public Duration getEnqueueTimeout() {
		return this.enqueueTimeout;
	}

	/** The engine settings. */
	public QueueSettings getSettings() {
		return this.settings;
	}

	/** The serializer of payloads and headers. */
	public JobSerializer getSerializer() {
		return this.serializer;
	}

	/** The keys of one queue (validates the name). */
	public QueueKeys keys(String queue) {
		QueueKeys existing = this.keys.get(queue);
		return (existing != null) ? existing
				: this.keys.computeIfAbsent(queue, (name) -> new QueueKeys(this.settings.keyPrefix(), name));
	}

	// ---- producer

	@Override
	public EnqueueResult enqueue(String queue, Object payload, JobOptions options) {
		return enqueueAll(queue, List.of(payload), options).get(0);
	}

	@Override
	public List<EnqueueResult> enqueueAll(String queue, Collection<?> payloads, JobOptions options) {
		QueueKeys k = keys(queue);
		if (payloads.isEmpty()) {
			return List.of();
		}
		if (options.getIdempotencyKey() != null && payloads.size() > 1) {
			throw new IllegalArgumentException("An idempotency key names one job: it cannot be shared by the "
					+ payloads.size() + " payloads of one enqueueAll call to queue '" + queue + "'");
		}
		List<byte[]> serialized = new ArrayList<>(payloads.size());
		for (Object payload : payloads) {
			if (payload == null) {
				throw new IllegalArgumentException("Payload for queue '" + queue + "' must not be null");
			}
			byte[] bytes = this.serializer.serialize(payload);
			if (bytes.length > this.settings.maxPayloadBytes()) {
				throw new PayloadTooLargeException(queue, bytes.length, this.settings.maxPayloadBytes());
			}
			serialized.add(bytes);
		}
		if (this.observationRegistry.isNoop()) {
			return enqueueSerialized(queue, k, serialized, options, options.getHeaders());
		}
		Observation observation = QueueObservation.ENQUEUE.observation(this.enqueueConvention,
				QueueEnqueueObservationConvention.DEFAULT,
				() -> new QueueEnqueueContext(queue, serialized.size(), options.getHeaders()), this.observationRegistry);
		observation.start();
		try (Observation.Scope scope = observation.openScope()) {
			Map<String, String> headers = (observation.getContext() instanceof QueueEnqueueContext context)
					? context.getHeaders() : options.getHeaders();
			return enqueueSerialized(queue, k, serialized, options, headers);
		}
		catch (RuntimeException ex) {
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	private List<EnqueueResult> enqueueSerialized(String queue, QueueKeys k, List<byte[]> serialized,
			JobOptions options, Map<String, String> headerValues) {
		register(k);
		byte[][] shared = jobOptionArgs(options);
		byte[] headers = this.serializer.serializeHeaders(headerValues);
		List<EnqueueResult> results = new ArrayList<>(serialized.size());
		int chunk = this.settings.enqueueChunk();
		for (int from = 0; from < serialized.size(); from += chunk) {
			List<byte[]> part = serialized.subList(from, Math.min(from + chunk, serialized.size()));
			List<byte[]> args = new ArrayList<>(1 + part.size() * 11);
			args.add(num(part.size()));
			for (byte[] payload : part) {
				args.add(payload);
				args.add(headers);
				Collections.addAll(args, shared);
			}
			List<Object> reply;
			try {
				reply = runWithin(this.scripts.enqueue(), k, args, this.enqueueTimeout);
			}
			catch (RuntimeException ex) {
				if (String.valueOf(ex.getMessage()).contains("queue sequence exhausted")) {
					throw new QueueException("Queue '" + queue + "' refused the enqueue before writing anything: it has "
							+ "used its 999,999,999,999 sequence numbers (drain it and move to a new queue name)", ex);
				}
				throw ex;
			}
			for (int i = 0; i < reply.size(); i += 2) {
				results.add(new EnqueueResult(text(reply.get(i)), longValue(reply.get(i + 1)) == 0));
			}
		}
		long duplicates = results.stream().filter(EnqueueResult::duplicate).count();
		record(queue, JobOutcome.ENQUEUED, results.size() - duplicates);
		record(queue, JobOutcome.DUPLICATE, duplicates);
		return results;
	}

	private byte[][] jobOptionArgs(JobOptions options) {
		int maxAttempts = (options.getMaxAttempts() != null) ? options.getMaxAttempts()
				: this.settings.defaultMaxAttempts();
		return new byte[][] { num(options.getPriority()), num(millis(options.getDelay())),
				num((options.getRunAt() != null) ? options.getRunAt().toEpochMilli() : 0),
				(options.getUniqueKey() != null) ? utf8(options.getUniqueKey()) : EMPTY,
				num(options.getUniqueFor().toMillis()), num(millis(options.getExpireAfter())), num(maxAttempts),
				(options.getIdempotencyKey() != null) ? utf8(options.getIdempotencyKey()) : EMPTY,
				num(options.getIdempotencyWindow().toMillis()) };
	}

	// ---- pull API

	@Override
	public List<ReservedJob> reserve(String queue, int max, Duration lease) {
		return reserveBatch(queue, max, lease, this.settings.workerId()).jobs();
	}

	@Override
	public <T> List<Job<T>> reserve(String queue, int max, Duration lease, Class<T> type) {
		List<ReservedJob> jobs = reserve(queue, max, lease);
		List<Job<T>> result = new ArrayList<>(jobs.size());
		for (ReservedJob job : jobs) {
			try {
				result.add(new Job<>(job, readPayload(job, type)));
			}
			catch (JobConversionException ex) {
				logger.warn("Dead-lettering job {} of queue '{}': {}", job.id(), queue, ex.getMessage());
				deadLetter(queue, job.ref(), ex.getMessage());
			}
		}
		return result;
	}

	@Override
	public Reservation reserveBatch(String queue, int max, Duration lease, String workerId) {
		return reserveBatch(queue, max, lease, workerId, List.of());
	}

	@Override
	public Reservation reserveBatch(String queue, int max, Duration lease, String workerId,
			Collection<JobRef> completions) {
		return reserveBatch(queue, max, lease, workerId, completions, 0);
	}

	@Override
	public Reservation reserveBatch(String queue, int max, Duration lease, String workerId,
			Collection<JobRef> completions, int maxAttempts) {
		return reserveBatch(queue, max, lease, workerId, completions, maxAttempts, max);
	}

	@Override
	public Reservation reserveBatch(String queue, int max, Duration lease, String workerId,
			Collection<JobRef> completions, int maxAttempts, int startNow) {
		QueueKeys k = keys(queue);
		if (maxAttempts < 0 || maxAttempts > JobOptions.MAX_ATTEMPTS_LIMIT) {
			throw new IllegalArgumentException("Max attempts " + maxAttempts + " is out of range: it must be from 1 to "
					+ JobOptions.MAX_ATTEMPTS_LIMIT + ", or 0 for the job's own");
		}
		if (max < 1 || max > MAX_RESERVE) {
			throw new IllegalArgumentException(
					"Reserve count " + max + " is out of range: it must be from 1 to " + MAX_RESERVE);
		}
		checkLease(lease);
		List<byte[]> args = new ArrayList<>(8 + completions.size() * 2);
		Collections.addAll(args, num(max), num(lease.toMillis()), utf8(workerId), num(this.settings.reclaimBatch()),
				num(this.settings.reapBatch()), num(this.settings.completedRetention().toMillis()), num(maxAttempts),
				num(Math.max(0, startNow)));
		for (JobRef job : completions) {
			args.add(utf8(job.id()));
			args.add(num(job.token()));
		}
		List<Object> reply = run(this.scripts.reserve(), k, args);
		long nextDue = longValue(reply.get(0));
		int count = (int) longValue(reply.get(3));
		List<ReservedJob> jobs = new ArrayList<>(count);
		for (int i = 0, at = 7; i < count; i++, at += 10) {
			jobs.add(new ReservedJob(queue, text(reply.get(at)), (byte[]) reply.get(at + 1),
					headers(queue, reply.get(at + 2)), (int) longValue(reply.get(at + 3)),
					(int) longValue(reply.get(at + 4)), longValue(reply.get(at + 5)),
					Instant.ofEpochMilli(longValue(reply.get(at + 6))), Instant.ofEpochMilli(longValue(reply.get(at + 7))),
					(int) longValue(reply.get(at + 8))));
			waited(queue, longValue(reply.get(at + 9)));
		}
		Reservation reservation = new Reservation(jobs, (nextDue >= 0) ? Instant.ofEpochMilli(nextDue) : null,
				(int) longValue(reply.get(1)), (int) longValue(reply.get(2)), (int) longValue(reply.get(4)),
				(int) longValue(reply.get(5)), Instant.ofEpochMilli(longValue(reply.get(6))));
		record(queue, JobOutcome.COMPLETED,
				completions.size() - reservation.refusedCompletions() - reservation.missingCompletions());
		record(queue, JobOutcome.REAPED, reservation.reclaimed());
		record(queue, JobOutcome.EXPIRED, reservation.expired());
		return reservation;
	}

	@Override
	public <T> T readPayload(ReservedJob job, Type type) {
		return this.serializer.deserialize(job.payload(), type);
	}

	@Override
	public AckResult complete(String queue, JobRef job) {
		return completeAll(queue, List.of(job)).get(0);
	}

	@Override
	public List<AckResult> completeAll(String queue, Collection<JobRef> jobs) {
		List<Object> reply = run(this.scripts.complete(), keys(queue),
				refArgs(num(this.settings.completedRetention().toMillis()), jobs));
		record(queue, JobOutcome.COMPLETED, reply.stream().filter((code) -> longValue(code) == 1).count());
		return codes(reply, AckResult::fromCode);
	}

	@Override
	public FailResult retry(String queue, JobRef job, String error, Duration delay) {
		if (delay.isNegative()) {
			throw new IllegalArgumentException("Retry delay " + delay + " is negative: it must be zero or more");
		}
		return fail(queue, job, error, RETRY, delay.toMillis());
	}

	@Override
	public FailResult deadLetter(String queue, JobRef job, String error) {
		return fail(queue, job, error, DEAD, 0);
	}

	private FailResult fail(String queue, JobRef job, String error, byte[] mode, long delayMs) {
		List<Object> reply = run(this.scripts.fail(), keys(queue),
				List.of(utf8(job.id()), num(job.token()), utf8(error), mode, num(delayMs)));
		FailResult result = FailResult.fromCode(longValue(reply.get(0)));
		if (result == FailResult.RETRY_SCHEDULED) {
			record(queue, JobOutcome.FAILED, 1);
		}
		else if (result == FailResult.DEAD_LETTERED) {
			record(queue, JobOutcome.DEAD_LETTERED, 1);
		}
		return result;
	}

	@Override
	public ExtendResult extend(String queue, JobRef job, Duration lease) {
		return extendAll(queue, List.of(job), lease).get(0);
	}

	@Override
	public List<ExtendResult> extendAll(String queue, Collection<JobRef> jobs, Duration lease) {
		checkLease(lease);
		List<Object> reply = run(this.scripts.extend(), keys(queue), refArgs(num(lease.toMillis()), jobs));
		return codes(reply, ExtendResult::fromCode);
	}

	@Override
	public AckResult release(String queue, JobRef job) {
		return releaseAll(queue, List.of(job)).get(0);
	}

	@Override
	public List<AckResult> releaseAll(String queue, Collection<JobRef> jobs) {
		return releaseAll(queue, jobs, false);
	}

	@Override
	public List<AckResult> releaseAll(String queue, Collection<JobRef> jobs, boolean started) {
		List<Object> reply = run(this.scripts.release(), keys(queue), refArgs(started ? STARTED : UNSTARTED, jobs));
		return codes(reply, AckResult::fromCode);
	}

	@Override
	public int releaseWorker(String queue, String workerId) {
		if (workerId.isEmpty()) {
			throw new IllegalArgumentException("Worker id must not be empty");
		}
		QueueKeys k = keys(queue);
		// one bounded slice of the in-flight set per call, so Redis serves others in between
		long total = 0;
		long cursor = 0;
		do {
			List<Object> reply = run(this.scripts.release(), k, List.of(WORKER, utf8(workerId), num(cursor)));
			total += longValue(reply.get(0));
			cursor = longValue(reply.get(1));
		}
		while (cursor > 0);
		return (int) total;
	}

	/**
	 * Open a dedicated connection on which a fetch loop blocks until a job may be ready.
	 * @param queue the queue name
	 * @return the waiter; close it when the loop ends
	 */
	public QueueWaiter openWaiter(String queue) {
		return new QueueWaiter(this.connectionFactory, keys(queue));
	}

	// ---- administration

	@Override
	public Set<String> queues() {
		Set<byte[]> members = this.redis.opsForSet().members(utf8(QueueKeys.registryKey(this.settings.keyPrefix())));
		Set<String> names = new TreeSet<>();
		if (members != null) {
			members.forEach((member) -> names.add(new String(member, StandardCharsets.UTF_8)));
		}
		return names;
	}

	@Override
	public QueueCounts counts(String queue) {
		return counts(queue, run(this.scripts.inspect(), keys(queue), List.of(EMPTY)));
	}

	@Override
	public Map<String, QueueCounts> counts(Collection<String> queues) {
		List<String> names = List.copyOf(queues);
		names.forEach(this::keys);
		if (names.isEmpty()) {
			return Map.of();
		}
		List<Object> replies = inspectPipelined(names, false);
		Map<String, QueueCounts> counts = new java.util.LinkedHashMap<>();
		for (int i = 0; i < names.size(); i++) {
			@SuppressWarnings("unchecked")
			List<Object> reply = (List<Object>) replies.get(i);
			counts.put(names.get(i), counts(names.get(i), reply));
		}
		return counts;
	}

	@Override
	public QueueOverview overview() {
		List<String> known = List.copyOf(this.overviewQueues);
		List<Object> replies = inspectPipelined(known, true);
		Set<String> names = new TreeSet<>();
		if (replies.get(0) instanceof Collection<?> members) {
			members.forEach((member) -> names.add(text(member)));
		}
		List<WorkerInfo> workers = workerList(replies.get(1));
		Map<String, QueueCounts> counts = new java.util.TreeMap<>();
		for (int i = 0; i < known.size(); i++) {
			if (names.contains(known.get(i))) {
				@SuppressWarnings("unchecked")
				List<Object> reply = (List<Object>) replies.get(i + 2);
				counts.put(known.get(i), counts(known.get(i), reply));
			}
		}
		List<String> added = names.stream().filter((name) -> !counts.containsKey(name)).toList();
		if (!added.isEmpty()) {
			// queues first seen: one more round trip, this time only
			counts.putAll(counts(added));
			this.overviewQueues.addAll(added);
		}
		return new QueueOverview(Collections.unmodifiableMap(counts), workers);
	}

	/**
	 * Runs the inspect script for each queue in one pipeline, after the queue registry and the
	 * worker list when {@code overview} is set; reloads the scripts once when Redis lost them.
	 */
	private List<Object> inspectPipelined(List<String> names, boolean overview) {
		try {
			return inspectPipelinedOnce(names, overview);
		}
		catch (RuntimeException ex) {
			if (!isNoScript(ex)) {
				throw ex;
			}
			// the script cache was emptied (restart, failover, SCRIPT FLUSH): load and try once more
			preloadScripts();
			return inspectPipelinedOnce(names, overview);
		}
	}

	private List<Object> inspectPipelinedOnce(List<String> names, boolean overview) {
		String inspectSha = this.scripts.inspect().getSha1();
		String workersSha = this.scripts.workers().getSha1();
		byte[] registry = utf8(QueueKeys.registryKey(this.settings.keyPrefix()));
		byte[] workers = utf8(workersTag());
		byte[] workerPrefix = utf8(workersTag() + ":");
		List<Object> replies = this.redis.execute((RedisCallback<List<Object>>) (connection) -> {
			if (connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> commands) {
				// Lettuce: send every command on the shared connection at once and then wait for
				// all answers; a pipeline would open a dedicated connection for each call
				@SuppressWarnings("unchecked")
				RedisClusterAsyncCommands<byte[], byte[]> async = (RedisClusterAsyncCommands<byte[], byte[]>) commands;
				List<RedisFuture<?>> futures = new ArrayList<>(names.size() + 2);
				if (overview) {
					futures.add(async.smembers(registry));
					futures.add(async.evalsha(workersSha, ScriptOutputType.MULTI, new byte[][] { workers },
							workerPrefix));
				}
				for (String name : names) {
					QueueKeys k = keys(name);
					futures.add(async.evalsha(inspectSha, ScriptOutputType.MULTI,
							k.scriptKeys().toArray(byte[][]::new), k.jobPrefix(), k.uniquePrefix(), EMPTY));
				}
				return awaitAll(futures);
			}
			return null;
		});
		if (replies != null) {
			return replies;
		}
		return this.redis.executePipelined((RedisCallback<Object>) (connection) -> {
			if (overview) {
				connection.setCommands().sMembers(registry);
				connection.scriptingCommands().evalSha(utf8(workersSha), ReturnType.MULTI, 1, workers, workerPrefix);
			}
			for (String name : names) {
				QueueKeys k = keys(name);
				List<byte[]> keysAndArgs = new ArrayList<>(k.scriptKeys());
				Collections.addAll(keysAndArgs, k.jobPrefix(), k.uniquePrefix(), EMPTY);
				connection.scriptingCommands()
					.evalSha(utf8(inspectSha), ReturnType.MULTI, k.scriptKeys().size(),
							keysAndArgs.toArray(byte[][]::new));
			}
			return null;
		}, null);
	}

	private List<Object> awaitAll(List<RedisFuture<?>> futures) {
		Duration timeout = commandTimeout();
		long deadline = System.nanoTime() + timeout.toNanos();
		List<Object> replies = new ArrayList<>(futures.size());
		for (RedisFuture<?> future : futures) {
			replies.add(await(future, deadline, timeout));
		}
		return replies;
	}

	private Duration commandTimeout() {
		return (this.connectionFactory instanceof LettuceConnectionFactory lettuce)
				? Duration.ofMillis(lettuce.getTimeout()) : Duration.ofMinutes(1);
	}

	private void waited(String queue, long millis) {
		if (this.events != JobEvents.NONE) {
			try {
				this.events.waited(queue, Duration.ofMillis(millis));
			}
			catch (RuntimeException ex) {
				logger.warn("Job events listener failed for queue '{}'", queue, ex);
			}
		}
	}

	private void record(String queue, JobOutcome outcome, long count) {
		if (count > 0) {
			try {
				this.events.record(queue, outcome, count);
			}
			catch (RuntimeException ex) {
				logger.warn("Job events listener failed for queue '{}'", queue, ex);
			}
		}
	}

	private static boolean isNoScript(Throwable failure) {
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (String.valueOf(t.getMessage()).contains("NOSCRIPT")) {
				return true;
			}
			if (t instanceof RedisPipelineException pipeline) {
				for (Object result : pipeline.getPipelineResult()) {
					if (result instanceof Throwable nested && isNoScript(nested)) {
						return true;
					}
				}
			}
		}
		return false;
	}

	private static QueueCounts counts(String queue, List<Object> reply) {
		return new QueueCounts(queue, longValue(reply.get(0)), longValue(reply.get(1)), longValue(reply.get(2)),
				longValue(reply.get(3)), longValue(reply.get(4)), longValue(reply.get(5)) == 1,
				totals((List<?>) reply.get(6)),
				(longValue(reply.get(7)) >= 0) ? Duration.ofMillis(longValue(reply.get(7))) : null,
				longValue(reply.get(8)) * 1000.0 / Math.max(1, longValue(reply.get(9))));
	}

	@Override
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public void heartbeat(WorkerInfo worker, Duration timeToLive) {
		String tag = workersTag();
		List<byte[]> args = new ArrayList<>();
		Collections.addAll(args, utf8(worker.id()), num(timeToLive.toMillis()), ascii("host"), utf8(worker.host()),
				ascii("queues"), utf8(String.join(",", worker.queues())), ascii("runningJobs"),
				num(worker.runningJobs()), ascii("startedAt"),
				num((worker.startedAt() != null) ? worker.startedAt().toEpochMilli() : 0));
		Long now = (Long) this.redis.execute((RedisScript) this.scripts.heartbeat(), BYTES, (RedisSerializer) BYTES,
				List.of(utf8(tag), utf8(tag + ":" + worker.id()), utf8(silentWorkersKey())), args.toArray());
		// each queue keeps its own record of its live consumers, which its reaper pass reads
		double deadline = ((now != null) ? now : System.currentTimeMillis()) + timeToLive.toMillis();
		byte[] id = utf8(worker.id());
		for (String queue : worker.queues()) {
			this.redis.opsForZSet().add(keys(queue).live(), id, deadline);
		}
	}

	@Override
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public void leave(WorkerInfo worker) {
		String tag = workersTag();
		byte[] id = utf8(worker.id());
		for (String queue : worker.queues()) {
			this.redis.opsForZSet().remove(keys(queue).live(), (Object) id);
		}
		this.redis.execute((RedisScript) this.scripts.heartbeat(), BYTES, (RedisSerializer) BYTES,
				List.of(utf8(tag), utf8(tag + ":" + worker.id()), utf8(silentWorkersKey())), id, num(0));
	}

	@Override
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public List<String> silentWorkers() {
		List<Object> reply = (List<Object>) this.redis.execute((RedisScript) this.scripts.silent(), BYTES,
				(RedisSerializer) BYTES, List.of(utf8(workersTag()), utf8(silentWorkersKey())), ascii("list"));
		List<String> ids = new ArrayList<>();
		if (reply != null) {
			reply.forEach((id) -> ids.add(text(id)));
		}
		return ids;
	}

	private String silentWorkersKey() {
		// never of the form tag + ':' + id, so no worker's hash can have this name
		return workersTag() + ".silent";
	}

	@Override
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public List<WorkerInfo> workers() {
		String tag = workersTag();
		return workerList(this.redis.execute((RedisScript) this.scripts.workers(), BYTES, (RedisSerializer) BYTES,
				List.of(utf8(tag)), utf8(tag + ":")));
	}

	private String workersTag() {
		// '~' never occurs in a queue name, so no queue's keys can fall in the registry's namespace
		return "{" + this.settings.keyPrefix() + ":~workers}";
	}

	@SuppressWarnings("unchecked")
	private static List<WorkerInfo> workerList(@Nullable Object result) {
		List<Object> reply = (List<Object>) result;
		List<WorkerInfo> workers = new ArrayList<>();
		for (int i = 0; reply != null && i + 1 < reply.size(); i += 2) {
			Map<String, byte[]> f = new HashMap<>();
			List<Object> flat = (List<Object>) reply.get(i + 1);
			for (int j = 0; j + 1 < flat.size(); j += 2) {
				f.put(text(flat.get(j)), (byte[]) flat.get(j + 1));
			}
			String queues = str(f, "queues");
			workers.add(new WorkerInfo(text(reply.get(i)), str(f, "host"),
					queues.isEmpty() ? List.of() : List.of(queues.split(",")), (int) num(f, "runningJobs"),
					instant(f, "startedAt"), instant(f, "lastSeen")));
		}
		return workers;
	}

	private static Map<String, Long> totals(List<?> flat) {
		Map<String, Long> totals = new HashMap<>();
		for (int i = 0; i + 1 < flat.size(); i += 2) {
			String name = text(flat.get(i));
			Long value = parseLong(text(flat.get(i + 1)));
			if (!name.startsWith("~") && value != null) {
				// fields starting with ~ are internal (the buckets of the recent throughput and the like)
				totals.put(name, value);
			}
		}
		return Collections.unmodifiableMap(totals);
	}

	@Override
	public Optional<JobInfo> job(String queue, String id) {
		QueueKeys k = keys(queue);
		byte[] key = utf8(k.jobKey(id));
		Map<byte[], byte[]> raw = this.redis.execute((RedisCallback<Map<byte[], byte[]>>) (connection) -> connection
			.hashCommands()
			.hGetAll(key));
		if (raw == null || raw.isEmpty()) {
			return Optional.empty();
		}
		Map<String, byte[]> f = new HashMap<>();
		raw.forEach((field, value) -> f.put(new String(field, StandardCharsets.UTF_8), value));
		return Optional.of(new JobInfo(queue, id, JobState.fromRedis(str(f, "state")), f.getOrDefault("payload", EMPTY),
				headers(queue, f.getOrDefault("headers", EMPTY)), (int) num(f, "priority"), (int) num(f, "attempts"),
				(int) num(f, "maxAttempts"), Instant.ofEpochMilli(num(f, "enqueuedAt")), instant(f, "dueAt"),
				instant(f, "expireAt"), instant(f, "leaseUntil"), emptyToNull(str(f, "worker")),
				emptyToNull(str(f, "error")), instant(f, "finishedAt")));
	}

	@Override
	public List<DeadJob> deadLetters(String queue, int offset, int count) {
		if (offset < 0 || count < 1 || count > MAX_RESERVE) {
			throw new IllegalArgumentException("Dead-letter page (offset " + offset + ", count " + count
					+ ") is invalid: offset must be 0 or more and count from 1 to " + MAX_RESERVE);
		}
		List<Object> reply = run(this.scripts.inspect(), keys(queue), List.of(DEAD, num(offset), num(count)));
		List<DeadJob> jobs = new ArrayList<>();
		for (int at = 10; at + 5 < reply.size(); at += 6) {
			jobs.add(new DeadJob(text(reply.get(at)), (byte[]) reply.get(at + 1), headers(queue, reply.get(at + 2)),
					(int) longValue(reply.get(at + 3)), text(reply.get(at + 4)),
					Instant.ofEpochMilli(longValue(reply.get(at + 5)))));
		}
		return jobs;
	}

	@Override
	public boolean retryDead(String queue, String id) {
		return deadOp(queue, RETRY, id) == 1;
	}

	@Override
	public long retryAllDead(String queue) {
		return deadOpAll(queue, RETRY);
	}

	@Override
	public boolean purgeDead(String queue, String id) {
		return deadOp(queue, PURGE, id) == 1;
	}

	@Override
	public long purgeAllDead(String queue) {
		return deadOpAll(queue, PURGE);
	}

	private long deadOp(String queue, byte[] op, String id) {
		return longValue(run(this.scripts.dead(), keys(queue), List.of(op, num(1), ANY_TIME, utf8(id))).get(0));
	}

	/**
	 * Touches every job dead when the call began, each once: after the first step only jobs that
	 * died by the time of that step are taken, so jobs that die again later (and jobs whose retry
	 * was refused, which are stamped a millisecond after the refusal) are left for a later call.
	 */
	private long deadOpAll(String queue, byte[] op) {
		QueueKeys k = keys(queue);
		int batch = this.settings.reapBatch();
		long total = 0;
		byte[] before = ANY_TIME;
		while (true) {
			List<Object> reply = run(this.scripts.dead(), k, List.of(op, num(batch), before));
			long touched = longValue(reply.get(0));
			total += touched;
			if (touched + longValue(reply.get(1)) < batch) {
				return total;
			}
			if (before == ANY_TIME) {
				before = num(longValue(reply.get(2)));
			}
		}
	}

	@Override
	public boolean pause(String queue) {
		QueueKeys k = keys(queue);
		return Boolean.TRUE.equals(this.redis.opsForValue().setIfAbsent(k.paused(), ascii("1")));
	}

	@Override
	public boolean resume(String queue) {
		QueueKeys k = keys(queue);
		if (!Boolean.TRUE.equals(this.redis.delete(k.paused()))) {
			return false;
		}
		// one wake-up for blocked consumers; the scripts keep at most a few pending
		Long pending = this.redis.opsForList().size(k.wake());
		if (pending == null || pending < 8) {
			this.redis.opsForList().rightPush(k.wake(), ascii("1"));
		}
		return true;
	}

	@Override
	public ReapResult reapOnce(String queue) {
		List<byte[]> args = List.of(num(this.settings.reapBatch()), num(this.settings.completedRetention().toMillis()),
				num(this.settings.deadRetention().toMillis()));
		List<Object> reply = run(this.scripts.reap(), keys(queue), args);
		ReapResult result = new ReapResult(longValue(reply.get(0)), longValue(reply.get(1)), longValue(reply.get(2)),
				longValue(reply.get(3)), longValue(reply.get(4)), longValue(reply.get(5)));
		if (result.abandoned() > 0) {
			logger.info("Took back {} jobs of queue '{}' held by workers whose heartbeat ran out", result.abandoned(),
					queue);
		}
		record(queue, JobOutcome.REAPED, result.reclaimed() + result.abandoned());
		record(queue, JobOutcome.EXPIRED, result.expired());
		return result;
	}

	@Override
	public ReapResult reapOnce() {
		ReapResult total = ReapResult.NONE;
		for (String queue : queues()) {
			try {
				total = total.plus(reapOnce(queue));
			}
			catch (IllegalArgumentException ex) {
				logger.warn("Skipping queue '{}' of the registry: {}", queue, ex.getMessage());
			}
		}
		return total;
	}

	/** Load every script into the Redis script cache now instead of on first use. */
	public void preloadScripts() {
		this.redis.execute((RedisCallback<Void>) (connection) -> {
			for (RedisScript<?> script : this.scripts.all()) {
				connection.scriptingCommands().scriptLoad(utf8(script.getScriptAsString()));
			}
			return null;
		});
	}

	// ---- plumbing

	private void register(QueueKeys k) {
		if (this.registered.contains(k.queue())) {
			return;
		}
		checkLayout();
		this.redis.opsForSet().add(utf8(QueueKeys.registryKey(this.settings.keyPrefix())), utf8(k.queue()));
		this.registered.add(k.queue());
	}

	private void checkLayout() {
		if (this.layoutChecked) {
			return;
		}
		byte[] key = utf8(QueueKeys.layoutKey(this.settings.keyPrefix()));
		Boolean created = this.redis.opsForValue().setIfAbsent(key, ascii(QueueKeys.LAYOUT_VERSION));
		if (!Boolean.TRUE.equals(created)) {
			byte[] found = this.redis.opsForValue().get(key);
			String version = (found != null) ? new String(found, StandardCharsets.UTF_8) : QueueKeys.LAYOUT_VERSION;
			if (!QueueKeys.LAYOUT_VERSION.equals(version)) {
				throw new QueueException("Redis holds queue layout version " + version + " under key prefix '"
						+ this.settings.keyPrefix() + "', but this library writes version " + QueueKeys.LAYOUT_VERSION
						+ "; migrate the data or use another key prefix");
			}
		}
		this.layoutChecked = true;
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private List<Object> run(RedisScript<List> script, QueueKeys k, List<byte[]> args) {
		Object[] argv = new Object[args.size() + 2];
		argv[0] = k.jobPrefix();
		argv[1] = k.uniquePrefix();
		for (int i = 0; i < args.size(); i++) {
			argv[i + 2] = args.get(i);
		}
		List<Object> reply = this.redis.execute(script, BYTES, (RedisSerializer) BYTES, k.scriptKeys(), argv);
		return (reply != null) ? reply : List.of();
	}

	/**
	 * Runs a script and waits at most {@code timeout} for the answer. With Lettuce the script goes
	 * out on the shared connection asynchronously; past the timeout the command is cancelled
	 * (Lettuce does not send a cancelled command that still waits for a connection) and the call
	 * fails. Other drivers fall back to {@link #run}.
	 */
	@SuppressWarnings("unchecked")
	private List<Object> runWithin(RedisScript<List> script, QueueKeys k, List<byte[]> args, Duration timeout) {
		byte[][] keys = k.scriptKeys().toArray(byte[][]::new);
		byte[][] argv = new byte[args.size() + 2][];
		argv[0] = k.jobPrefix();
		argv[1] = k.uniquePrefix();
		for (int i = 0; i < args.size(); i++) {
			argv[i + 2] = args.get(i);
		}
		List<Object> reply = this.redis.execute((RedisCallback<List<Object>>) (connection) -> {
			if (!(connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> commands)) {
				return null;
			}
			RedisClusterAsyncCommands<byte[], byte[]> async = (RedisClusterAsyncCommands<byte[], byte[]>) commands;
			long deadline = System.nanoTime() + timeout.toNanos();
			try {
				return (List<Object>) await(async.evalsha(script.getSha1(), ScriptOutputType.MULTI, keys, argv), deadline,
						timeout);
			}
			catch (RuntimeException ex) {
				if (!isNoScript(ex)) {
					throw ex;
				}
				// the script cache was emptied (restart, failover, SCRIPT FLUSH): send the script itself
				return (List<Object>) await(async.eval(utf8(script.getScriptAsString()), ScriptOutputType.MULTI, keys,
						argv), deadline, timeout);
			}
		});
		return (reply != null) ? reply : run(script, k, args);
	}

	private static Object await(RedisFuture<?> future, long deadline, Duration timeout) {
		try {
			return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException cause) ? cause
					: new QueueException("Redis command failed", ex.getCause());
		}
		catch (TimeoutException ex) {
			future.cancel(true);
			throw new QueueException("Redis did not answer within " + timeout
					+ "; a call that was already sent may still take effect", ex);
		}
		catch (InterruptedException ex) {
			future.cancel(true);
			Thread.currentThread().interrupt();
			throw new QueueException("Interrupted while waiting for Redis", ex);
		}
	}

	private static <R> List<R> codes(List<Object> reply, java.util.function.LongFunction<R> mapper) {
		List<R> results = new ArrayList<>(reply.size());
		for (Object code : reply) {
			results.add(mapper.apply(longValue(code)));
		}
		return results;
	}

	private static List<byte[]> refArgs(byte[] first, Collection<JobRef> jobs) {
		List<byte[]> args = new ArrayList<>(1 + jobs.size() * 2);
		args.add(first);
		for (JobRef job : jobs) {
			args.add(utf8(job.id()));
			args.add(num(job.token()));
		}
		return args;
	}

	private Map<String, String> headers(String queue, @Nullable Object raw) {
		byte[] bytes = (raw instanceof byte[] b) ? b : EMPTY;
		try {
			return this.serializer.deserializeHeaders(bytes);
		}
		catch (JobConversionException ex) {
			logger.warn("Ignoring unreadable headers of a job in queue '{}': {}", queue, ex.getMessage());
			return Map.of();
		}
	}

	private static void checkLease(Duration lease) {
		if (lease.compareTo(MIN_LEASE) < 0 || lease.compareTo(MAX_LEASE) > 0) {
			throw new IllegalArgumentException(
					"Lease " + lease + " is out of range: it must be from " + MIN_LEASE + " to " + MAX_LEASE);
		}
	}

	private static long millis(@Nullable Duration duration) {
		return (duration != null) ? duration.toMillis() : 0;
	}

	static byte[] num(long value) {
		return ascii(Long.toString(value));
	}

	private static byte[] ascii(String value) {
		return value.getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
	}

	private static long longValue(Object value) {
		if (value instanceof Long number) {
			return number;
		}
		return Long.parseLong(text(value));
	}

	private static String str(Map<String, byte[]> fields, String name) {
		byte[] value = fields.get(name);
		return (value != null) ? new String(value, StandardCharsets.UTF_8) : "";
	}

	/** A numeric field of a job or worker hash; 0 when it is missing or not a number (damaged by hand). */
	private static long num(Map<String, byte[]> fields, String name) {
		Long value = parseLong(str(fields, name));
		return (value != null) ? value : 0;
	}

	private static @Nullable Long parseLong(String value) {
		try {
			return value.isEmpty() ? null : Long.parseLong(value);
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	private static @Nullable Instant instant(Map<String, byte[]> fields, String name) {
		long value = num(fields, name);
		return (value > 0) ? Instant.ofEpochMilli(value) : null;
	}

	private static @Nullable String emptyToNull(String value) {
		return value.isEmpty() ? null : value;
	}

}
