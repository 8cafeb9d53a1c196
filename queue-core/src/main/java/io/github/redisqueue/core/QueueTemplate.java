package io.github.redisqueue.core;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
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

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static io.github.redisqueue.core.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.ScriptArgs.encodeNumber;
import static io.github.redisqueue.core.ScriptArgs.encodeUtf8;

/**
 * The Redis implementation of {@link QueueOperations}: producing jobs and consuming them by
 * hand. Thread safe; one instance per application is enough. Every state change of a job is one
 * Lua script, with times taken from the Redis server clock inside the script. Inspection and
 * maintenance go through a {@link QueueAdmin} built on the template.
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
public class QueueTemplate implements QueueOperations, DisposableBean {

	/** Shortest lease accepted. */
	public static final Duration MIN_LEASE = Duration.ofMillis(10);

	/** Longest lease accepted. */
	public static final Duration MAX_LEASE = Duration.ofDays(7);

	/** Most jobs one reserve call may take. */
	public static final int MAX_RESERVE = 10_000;

	/** Longest wait for Redis to answer an enqueue, unless set otherwise. */
	public static final Duration DEFAULT_ENQUEUE_TIMEOUT = Duration.ofSeconds(5);

	private static final Logger logger = LoggerFactory.getLogger(QueueTemplate.class);

	private static final byte[] FAIL_RETRY = encodeAscii("retry");

	private static final byte[] FAIL_DEAD = encodeAscii("dead");

	private static final byte[] STARTED = encodeAscii("started");

	private static final byte[] UNSTARTED = encodeAscii("unstarted");

	private static final byte[] WORKER = encodeAscii("worker");

	private final RedisConnectionFactory connectionFactory;

	private final QueueScriptExecutor executor;

	private final JobSerializer serializer;

	private final QueueSettings settings;

	private final QueueWakeups wakeups;

	private final QueuePartitions partitioning;

	private final QueueRegistration registry;

	private volatile JobEvents events = JobEvents.NONE;

	private volatile ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private volatile @Nullable QueueEnqueueObservationConvention enqueueConvention;

	private volatile Duration enqueueTimeout = DEFAULT_ENQUEUE_TIMEOUT;

	private volatile DurableEnqueue durableEnqueue = DurableEnqueue.OFF;

	private final QueueBatches batches = new QueueBatches(this);

	private final JobResults results = new JobResults(this);

	/**
	 * A template with JSON payloads and default settings.
	 * @param connectionFactory the Redis connection factory
	 */
	public QueueTemplate(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, new JacksonJobSerializer(), QueueSettings.defaults());
	}

	/**
	 * A template with the given payload serialization and engine settings.
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
		this.executor = new QueueScriptExecutor(connectionFactory, scripts);
		this.registry = new QueueRegistration(this.executor, settings.keyPrefix());
		this.wakeups = new QueueWakeups(connectionFactory);
		this.partitioning = new QueuePartitions(settings);
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

	/** Make every enqueue wait for replicas, see {@link DurableEnqueue}; off by default. */
	public void setDurableEnqueue(DurableEnqueue durableEnqueue) {
		this.durableEnqueue = durableEnqueue;
	}

	DurableEnqueue durableEnqueue() {
		return this.durableEnqueue;
	}

	/** The engine settings. */
	public QueueSettings getSettings() {
		return this.settings;
	}

	/** The serializer of payloads and headers. */
	public JobSerializer getSerializer() {
		return this.serializer;
	}

	/** Which partitions a queue has, where its jobs go, and which partitions answer. */
	QueuePartitions partitioning() {
		return this.partitioning;
	}

	/** The keys of a queue of one partition; see {@link QueuePartitions#keys}. */
	QueueKeys keys(String queue) {
		return this.partitioning.keys(queue);
	}

	/** The keys of every partition of a queue; see {@link QueuePartitions#partitions}. */
	QueueKeys[] partitions(String queue) {
		return this.partitioning.partitions(queue);
	}

	/** The keys of the partition holding a job or batch id; see {@link QueuePartitions#keysFor}. */
	QueueKeys keysFor(String queue, String id) {
		return this.partitioning.keysFor(queue, id);
	}

	/**
	 * The names of a queue's partitions ({@code queue~index}), in partition order; the queue's own
	 * name alone when it is not partitioned.
	 * @param queue the queue name
	 * @return the partition names
	 */
	public List<String> partitionNames(String queue) {
		return Arrays.stream(partitions(queue)).map(QueueKeys::name).toList();
	}

	/** See {@link QueuePartitions#partitionOfId}. */
	static int partitionOfId(String id, int count) {
		return QueuePartitions.partitionOfId(id, count);
	}

	/** See {@link QueuePartitions#partitionOfKey}. */
	static int partitionOfKey(String key, int count) {
		return QueuePartitions.partitionOfKey(key, count);
	}

	@Override
	public EnqueueResult enqueue(String queue, Object payload, JobOptions options) {
		return enqueueAll(queue, List.of(payload), options).get(0);
	}

	@Override
	public List<EnqueueResult> enqueueAll(String queue, Collection<?> payloads, JobOptions options) {
		partitions(queue);
		if (payloads.isEmpty()) {
			return List.of();
		}
		if (options.getIdempotencyKey() != null && payloads.size() > 1) {
			throw new IllegalArgumentException("An idempotency key names one job: it cannot be shared by the "
					+ payloads.size() + " payloads of one enqueueAll call to queue '" + queue + "'");
		}
		List<byte[]> serialized = serializePayloads(queue, payloads);
		if (this.observationRegistry.isNoop()) {
			return enqueueSerialized(queue, serialized, options, options.getHeaders());
		}
		Observation observation = QueueObservation.ENQUEUE.observation(this.enqueueConvention,
				QueueEnqueueObservationConvention.DEFAULT,
				() -> new QueueEnqueueContext(queue, serialized.size(), options.getHeaders()), this.observationRegistry);
		observation.start();
		try (Observation.Scope scope = observation.openScope()) {
			Map<String, String> headers = (observation.getContext() instanceof QueueEnqueueContext context)
					? context.getHeaders() : options.getHeaders();
			return enqueueSerialized(queue, serialized, options, headers);
		}
		catch (RuntimeException ex) {
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	/** Every payload serialized, all checked against the size limit before anything is sent. */
	List<byte[]> serializePayloads(String queue, Collection<?> payloads) {
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
		return serialized;
	}

	/**
	 * Enqueue serialized payloads: to the queue, or for a partitioned queue to the partition of the
	 * options' routing key, or else spread over the partitions in runs of equal length, starting
	 * with the partition whose turn it is.
	 */
	List<EnqueueResult> enqueueSerialized(String queue, List<byte[]> serialized, JobOptions options,
			Map<String, String> headerValues) {
		QueueKeys[] parts = partitions(queue);
		String routing = JobRouting.routingKey(queue, parts.length, options);
		if (parts.length == 1 || routing != null || serialized.size() == 1) {
			return enqueueOn(queue, this.partitioning.keysForNew(queue, routing), serialized, options, headerValues);
		}
		int first = this.partitioning.nextTurn(queue, parts.length);
		int runs = Math.min(parts.length, serialized.size());
		List<EnqueueResult> results = new ArrayList<>(serialized.size());
		for (int run = 0; run < runs; run++) {
			int from = (int) ((long) serialized.size() * run / runs);
			int to = (int) ((long) serialized.size() * (run + 1) / runs);
			results.addAll(enqueueOn(queue, parts[(first + run) % parts.length], serialized.subList(from, to), options,
					headerValues));
		}
		return results;
	}

	private List<EnqueueResult> enqueueOn(String queue, QueueKeys k, List<byte[]> serialized, JobOptions options,
			Map<String, String> headerValues) {
		register(k);
		byte[][] shared = ScriptArgs.jobOptionArgs(options, this.settings.defaultMaxAttempts(),
				this.settings.groupConcurrency(queue));
		byte[] headers = this.serializer.serializeHeaders(headerValues);
		List<byte[]> extraKeys = (options.getIdempotencyKey() != null)
				? List.of(encodeUtf8(k.idempotencyKey(options.getIdempotencyKey()))) : List.of();
		List<EnqueueResult> results = new ArrayList<>(serialized.size());
		int chunk = this.settings.enqueueChunk();
		for (int from = 0; from < serialized.size(); from += chunk) {
			List<byte[]> part = serialized.subList(from, Math.min(from + chunk, serialized.size()));
			// the headers and options once, then the payloads
			List<byte[]> args = new ArrayList<>(2 + shared.length + part.size());
			args.add(encodeNumber(part.size()));
			args.add(headers);
			Collections.addAll(args, shared);
			args.addAll(part);
			results.addAll(ScriptReplies.enqueueResults(runEnqueue(queue, k, extraKeys, args)));
		}
		long duplicates = results.stream().filter(EnqueueResult::duplicate).count();
		record(queue, JobOutcome.ENQUEUED, results.size() - duplicates);
		record(queue, JobOutcome.DUPLICATE, duplicates);
		return results;
	}

	private List<Object> runEnqueue(String queue, QueueKeys k, List<byte[]> extraKeys, List<byte[]> args) {
		return this.durableEnqueue.run(this.executor, queue, k, extraKeys, args, this.enqueueTimeout);
	}

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
		return reserve(queue, max, lease, workerId, completions, maxAttempts, startNow, false);
	}

	/**
	 * Like {@link #reserveBatch(String, int, Duration, String, Collection, int, int)}, for a fetch
	 * loop that sends completions with its reserves. On a partitioned queue it asks the partition
	 * whose turn it is for all the jobs wanted, and asks the others only when that partition comes
	 * up short: a busy queue costs one reserve call per reserve. The completions of the other
	 * partitions go to them by the complete script in the same round; those of a partition that
	 * did not answer (or is left out after failing lately) come back as
	 * {@link Reservation#unsentCompletions()}: send them with a later call. On a queue of one
	 * partition it is {@code reserveBatch}.
	 * @param queue the queue name
	 * @param max most jobs to reserve, from 1 to {@value #MAX_RESERVE}
	 * @param lease the lease of each job
	 * @param workerId the identity recorded on the leases
	 * @param completions jobs to complete first
	 * @param maxAttempts max attempts written on the jobs handed out, 0 for their own
	 * @param startNow how many of the jobs handed out start at once; the others are reserved ahead
	 * @return the reservation
	 */
	public Reservation reserveInTurn(String queue, int max, Duration lease, String workerId,
			Collection<JobRef> completions, int maxAttempts, int startNow) {
		if (partitions(queue).length == 1) {
			return reserveBatch(queue, max, lease, workerId, completions, maxAttempts, startNow);
		}
		return reserve(queue, max, lease, workerId, completions, maxAttempts, startNow, true);
	}

	private Reservation reserve(String queue, int max, Duration lease, String workerId, Collection<JobRef> completions,
			int maxAttempts, int startNow, boolean inTurn) {
		QueueKeys[] parts = partitions(queue);
		if (maxAttempts < 0 || maxAttempts > JobOptions.MAX_ATTEMPTS_LIMIT) {
			throw new IllegalArgumentException("Max attempts " + maxAttempts + " is out of range: it must be from 1 to "
					+ JobOptions.MAX_ATTEMPTS_LIMIT + ", or 0 for the job's own");
		}
		if (max < 1 || max > MAX_RESERVE) {
			throw new IllegalArgumentException(
					"Reserve count " + max + " is out of range: it must be from 1 to " + MAX_RESERVE);
		}
		checkLease(lease);
		WorkerIds.validateIdentity(workerId);
		JobIds.validateRefs(completions);
		Reservation reservation;
		if (parts.length == 1) {
			ScriptReplies.ReserveReply reply = ScriptReplies.reservation(queue, this.executor
				.run(this.executor.scripts().reserve(), parts[0], reserveArgs(max, lease, workerId, completions,
						maxAttempts, startNow, this.settings.rateLimit(queue))), (raw) -> headers(queue, raw));
			reservation = reserved(queue, parts[0], reply).aheadFrom(startNow);
		}
		else {
			register(parts[0]);
			reservation = new PartitionedReserve(this, queue, parts, this.partitioning.nextTurn(queue, parts.length), inTurn)
				.reserve(max, lease, workerId, completions, maxAttempts, startNow);
		}
		record(queue, JobOutcome.COMPLETED, completions.size() - reservation.refusedCompletions()
				- reservation.missingCompletions() - reservation.unsentCompletions().size());
		record(queue, JobOutcome.REAPED, reservation.reclaimed());
		record(queue, JobOutcome.EXPIRED, reservation.expired());
		if (reservation.rateLimitedUntil() != null) {
			this.events.rateLimited(queue);
		}
		return reservation;
	}

	/** The arguments of one reserve call; {@code rateLimit} {@code null} for none. */
	List<byte[]> reserveArgs(int max, Duration lease, String workerId, Collection<JobRef> completions,
			int maxAttempts, int startNow, @Nullable RateLimit rateLimit) {
		List<byte[]> args = new ArrayList<>(9 + completions.size() * 2);
		Collections.addAll(args, encodeNumber(max), encodeNumber(lease.toMillis()), encodeUtf8(workerId),
				encodeNumber(this.settings.reclaimBatch()), encodeNumber(this.settings.reapBatch()),
				encodeNumber(this.settings.completedRetention().toMillis()), encodeNumber(maxAttempts),
				encodeNumber(Math.max(0, startNow)),
				(rateLimit != null) ? encodeUtf8(rateLimit.scriptArgument()) : ScriptReplies.EMPTY);
		ScriptArgs.addRefs(args, completions);
		return args;
	}

	/** The arguments of one call of the complete script. */
	List<byte[]> completeArgs(Collection<JobRef> jobs) {
		return ScriptArgs.completeArgs(encodeNumber(this.settings.completedRetention().toMillis()), List.of(), jobs);
	}

	/**
	 * Records a partition's complete call made along with a reserve and hands off its finished
	 * batches.
	 * @return the per-job codes of the reply
	 */
	List<?> completedOn(String queue, QueueKeys k, List<Object> reply) {
		if (ScriptReplies.completeBatchesDone(reply) > 0) {
			this.batches.forward(queue, k);
		}
		return ScriptReplies.completeCodes(reply);
	}

	/** Reports the waits of a partition's reserve and hands off its finished batches. */
	Reservation reserved(String queue, QueueKeys k, ScriptReplies.ReserveReply reply) {
		reply.waits().forEach((wait) -> waited(queue, wait));
		if (reply.batchesDone() > 0) {
			this.batches.forward(queue, k);
		}
		return reply.reservation();
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
		return this.partitioning.byPartition(queue, jobs, (k, refs) -> {
			List<Object> reply = this.executor.run(this.executor.scripts().complete(), k, completeArgs(refs));
			List<?> codes = ScriptReplies.completeCodes(reply);
			record(queue, JobOutcome.COMPLETED, ScriptReplies.acknowledged(codes));
			if (ScriptReplies.completeBatchesDone(reply) > 0) {
				this.batches.forward(queue, k);
			}
			return ScriptReplies.ackResults(codes);
		});
	}

	@Override
	public FailResult retry(String queue, JobRef job, String error, Duration delay) {
		if (delay.isNegative()) {
			throw new IllegalArgumentException("Retry delay " + delay + " is negative: it must be zero or more");
		}
		return fail(queue, job, error, FAIL_RETRY, delay.toMillis());
	}

	@Override
	public FailResult deadLetter(String queue, JobRef job, String error) {
		return fail(queue, job, error, FAIL_DEAD, 0);
	}

	private FailResult fail(String queue, JobRef job, String error, byte[] mode, long delayMs) {
		QueueKeys k = this.partitioning.keysForJob(queue, job.id());
		List<Object> reply = this.executor.run(this.executor.scripts().fail(), k,
				List.of(encodeUtf8(job.id()), encodeNumber(job.token()), encodeUtf8(error), mode, encodeNumber(delayMs)));
		FailResult result = ScriptReplies.failResult(reply);
		if (result == FailResult.RETRY_SCHEDULED) {
			record(queue, JobOutcome.FAILED, 1);
		}
		else if (result == FailResult.DEAD_LETTERED) {
			record(queue, JobOutcome.DEAD_LETTERED, 1);
			if (ScriptReplies.failBatchesDone(reply)) {
				this.batches.forward(queue, k);
			}
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
		return this.partitioning.byPartition(queue, jobs, (k, refs) -> ScriptReplies.extendResults(this.executor
			.run(this.executor.scripts().extend(), k, ScriptArgs.refArgs(encodeNumber(lease.toMillis()), refs))));
	}

	@Override
	public boolean progress(String queue, JobRef job, @Nullable Object progress) {
		byte[] bytes = (progress != null) ? this.serializer.serialize(progress) : new byte[0];
		if (bytes.length > MAX_PROGRESS_SIZE) {
			throw new IllegalArgumentException("Progress of job " + job.id() + " of queue '" + queue + "' has "
					+ bytes.length + " bytes serialized: it must have at most " + MAX_PROGRESS_SIZE);
		}
		return ScriptReplies.progressWritten(this.executor.run(this.executor.scripts().progress(),
				this.partitioning.keysForJob(queue, job.id()), List.of(encodeUtf8(job.id()), encodeNumber(job.token()), bytes)));
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
		return this.partitioning.byPartition(queue, jobs, (k, refs) -> ScriptReplies.ackResults(this.executor
			.run(this.executor.scripts().release(), k, ScriptArgs.refArgs(started ? STARTED : UNSTARTED, refs))));
	}

	@Override
	public int releaseWorker(String queue, String workerId) {
		WorkerIds.validateIdentity(workerId);
		long total = 0;
		for (QueueKeys k : partitions(queue)) {
			// one bounded slice of the in-flight set per call, so Redis serves others in between
			long cursor = 0;
			do {
				ScriptReplies.WorkerReleaseReply reply = ScriptReplies.workerRelease(this.executor.run(
						this.executor.scripts().release(), k, List.of(WORKER, encodeUtf8(workerId), encodeNumber(cursor))));
				total += reply.taken();
				cursor = reply.cursor();
			}
			while (cursor > 0);
		}
		return (int) total;
	}

	@Override
	public BatchBuilder batch(String queue) {
		partitions(queue);
		return new BatchBuilder(this.batches, queue);
	}

	@Override
	public Batch batch(String queue, String batchId) {
		partitions(queue);
		return new Batch(this.batches, queue, batchId);
	}

	@Override
	public Optional<BatchStatus> batchStatus(String queue, String batchId) {
		return this.batches.status(queue, batchId);
	}

	@Override
	public BatchStatus cancelBatch(String queue, String batchId) {
		return this.batches.cancel(queue, batchId);
	}

	@Override
	public CompletableFuture<BatchStatus> batchCompletion(String queue, String batchId) {
		return this.batches.watch(queue, batchId);
	}

	@Override
	public <T> List<JobResult<T>> batchResults(String queue, String batchId, long offset, int count, Class<T> type) {
		return this.batches.results(queue, batchId, offset, count, type);
	}

	@Override
	public boolean storeResult(String queue, String jobId, Object result) {
		return this.results.store(queue, jobId, result);
	}

	@Override
	public <T> Optional<T> result(String queue, String jobId, Class<T> type) {
		return this.results.read(queue, jobId, type);
	}

	/**
	 * Hand off the completion jobs of the queue's finished batches now (the reaper calls it on
	 * each pass; fetch loops and completions call it when Redis reports such batches).
	 * @param queue the queue
	 * @return how many completion jobs were enqueued
	 */
	public int forwardBatchCompletions(String queue) {
		return this.batches.forward(queue);
	}

	/** Stops the batch notification listener and its fallback reads. */
	@Override
	public void destroy() {
		this.batches.stop();
		this.wakeups.stop();
	}

	/**
	 * Open a dedicated connection on which a fetch loop blocks until a job may be ready.
	 * @param queue the queue name
	 * @return the waiter; close it when the loop ends
	 */
	public QueueWaiter openWaiter(String queue) {
		QueueKeys[] parts = partitions(queue);
		if (parts.length == 1) {
			return new ListWaiter(this.connectionFactory, parts[0]);
		}
		return this.wakeups.open(parts);
	}

	/** Load every script into the Redis script cache now instead of on first use. */
	public void preloadScripts() {
		this.executor.preload();
	}

	QueueBatches batches() {
		return this.batches;
	}

	QueueScriptExecutor executor() {
		return this.executor;
	}

	/** Headers of a job; unreadable ones are logged and read as none. */
	Map<String, String> headers(String queue, byte[] raw) {
		try {
			return this.serializer.deserializeHeaders(raw);
		}
		catch (JobConversionException ex) {
			logger.warn("Ignoring unreadable headers of a job in queue '{}': {}", queue, ex.getMessage());
			return Map.of();
		}
	}

	/** Tells the job events how many jobs of a queue met an outcome. */
	void record(String queue, JobOutcome outcome, long count) {
		if (count > 0) {
			report(queue, (events) -> events.record(queue, outcome, count));
		}
	}

	private void waited(String queue, Duration wait) {
		if (this.events != JobEvents.NONE) {
			report(queue, (events) -> events.waited(queue, wait));
		}
	}

	/** A failing job events listener is logged; it never fails the call that reports to it. */
	private void report(String queue, Consumer<JobEvents> event) {
		try {
			event.accept(this.events);
		}
		catch (RuntimeException ex) {
			logger.warn("Job events listener failed for queue '{}'", queue, ex);
		}
	}

	/** Record the queue in the registry of queue names, once, after checking the layout version. */
	void register(QueueKeys k) {
		this.registry.register(k);
	}

	private static void checkLease(Duration lease) {
		if (lease.compareTo(MIN_LEASE) < 0 || lease.compareTo(MAX_LEASE) > 0) {
			throw new IllegalArgumentException(
					"Lease " + lease + " is out of range: it must be from " + MIN_LEASE + " to " + MAX_LEASE);
		}
	}

}
