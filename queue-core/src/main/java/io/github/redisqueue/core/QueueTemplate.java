package io.github.redisqueue.core;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.core.batch.QueueBatches;
import io.github.redisqueue.core.engine.JobResults;
import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.enqueue.AfterCommitEnqueues;
import io.github.redisqueue.core.enqueue.JobEnqueuer;
import io.github.redisqueue.core.partition.QueuePartitions;
import io.github.redisqueue.core.reserve.JobReserver;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueScriptExecutor;
import io.github.redisqueue.core.script.ScriptArgs;
import io.github.redisqueue.core.script.ScriptReplies;
import io.github.redisqueue.core.wakeup.ListWaiter;
import io.github.redisqueue.core.wakeup.QueueWakeups;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.support.converter.JobConversionException;
import io.github.redisqueue.support.converter.JobSerializer;
import io.github.redisqueue.support.micrometer.QueueEnqueueObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static io.github.redisqueue.core.script.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.script.ScriptArgs.encodeNumber;
import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;

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
	public static final Duration MIN_LEASE = JobReserver.MIN_LEASE;

	/** Longest lease accepted. */
	public static final Duration MAX_LEASE = JobReserver.MAX_LEASE;

	/** Most jobs one reserve call may take. */
	public static final int MAX_RESERVE = JobReserver.MAX_RESERVE;

	/** Longest wait for Redis to answer an enqueue, unless set otherwise. */
	public static final Duration DEFAULT_ENQUEUE_TIMEOUT = Duration.ofSeconds(5);

	private static final Logger logger = LoggerFactory.getLogger(QueueTemplate.class);

	private static final byte[] FAIL_RETRY = encodeAscii("retry");

	private static final byte[] FAIL_DEAD = encodeAscii("dead");

	private static final byte[] WORKER = encodeAscii("worker");

	private final QueueContext context;

	private final QueueWakeups wakeups;

	private final JobEnqueuer enqueuer;

	private final QueueBatches batches;

	private final JobReserver reserver;

	private final JobResults results;

	private volatile boolean transactionAware;

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
		this.context = new QueueContext(connectionFactory, serializer, settings, scripts, DEFAULT_ENQUEUE_TIMEOUT);
		this.wakeups = new QueueWakeups(connectionFactory);
		this.enqueuer = new JobEnqueuer(this.context);
		this.batches = new QueueBatches(this.context, this.enqueuer);
		this.reserver = new JobReserver(this.context, this.batches);
		this.results = new JobResults(this.context);
	}

	/** The connection factory the template uses. */
	public RedisConnectionFactory getConnectionFactory() {
		return this.context.connectionFactory();
	}

	/** Where job outcomes are reported (for example outcome counters). */
	public void setJobEvents(JobEvents events) {
		this.context.setEvents(events);
	}

	/** Where job outcomes are reported; {@link JobEvents#NONE} unless set. */
	public JobEvents getJobEvents() {
		return this.context.events();
	}

	/**
	 * Observe each enqueue call as {@code queue.enqueue}; with tracing, the current trace
	 * context is written into the jobs' headers so that their handlers continue the trace.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.enqueuer.setObservationRegistry(observationRegistry);
	}

	/** The registry enqueue calls are observed with ({@link ObservationRegistry#NOOP} by default). */
	public ObservationRegistry getObservationRegistry() {
		return this.enqueuer.observationRegistry();
	}

	/** Replace the default enqueue observation names and tags. */
	public void setEnqueueObservationConvention(@Nullable QueueEnqueueObservationConvention convention) {
		this.enqueuer.setEnqueueConvention(convention);
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
		this.context.setEnqueueTimeout(enqueueTimeout);
	}

	/** How long an enqueue call waits for Redis. */
	public Duration getEnqueueTimeout() {
		return this.context.enqueueTimeout();
	}

	/** Make every enqueue wait for replicas, see {@link DurableEnqueue}; off by default. */
	public void setDurableEnqueue(DurableEnqueue durableEnqueue) {
		this.context.setDurableEnqueue(durableEnqueue);
	}

	/**
	 * Defer the enqueues called inside a Spring transaction (while a transaction runs and its
	 * synchronization is active) until it commits, and drop them if it rolls back; outside a
	 * transaction enqueues run at once either way. A deferred enqueue checks and serializes its
	 * payloads at once (a bad payload fails inside the transaction) and returns
	 * {@link EnqueueResult#DEFERRED}, without an id: the job does not exist before the commit. A
	 * deferred enqueue that fails after the commit is logged as an error, not thrown. Batches and
	 * the pull side are never deferred. Off by default.
	 * @param transactionAware whether enqueues wait for the current transaction to commit
	 * @since 0.1.0
	 */
	public void setTransactionAware(boolean transactionAware) {
		this.transactionAware = transactionAware;
	}

	/** Whether enqueues inside a transaction wait for it to commit; see {@link #setTransactionAware}. */
	public boolean isTransactionAware() {
		return this.transactionAware;
	}

	/** The engine settings. */
	public QueueSettings getSettings() {
		return this.context.settings();
	}

	/** The serializer of payloads and headers. */
	public JobSerializer getSerializer() {
		return this.context.serializer();
	}

	/** What the parts of this template share. */
	QueueContext context() {
		return this.context;
	}

	/** The keys of a queue of one partition; see {@link QueuePartitions#keys}. */
	QueueKeys keys(String queue) {
		return this.context.partitioning().keys(queue);
	}

	/** The keys of every partition of a queue; see {@link QueuePartitions#partitions}. */
	QueueKeys[] partitions(String queue) {
		return this.context.partitions(queue);
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
		if (this.transactionAware && AfterCommitEnqueues.active()) {
			return AfterCommitEnqueues.defer(this.enqueuer, queue, payloads, options);
		}
		return this.enqueuer.enqueueAll(queue, payloads, options);
	}

	@Override
	public List<ReservedJob> reserve(String queue, int max, Duration lease) {
		return reserveBatch(queue, max, lease, this.context.settings().workerId()).jobs();
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
		return this.reserver.reserve(queue, max, lease, workerId, completions, maxAttempts, startNow, false);
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
		return this.reserver.reserve(queue, max, lease, workerId, completions, maxAttempts, startNow, true);
	}

	/**
	 * Waits on a waiter from {@link #openWaiter} and reserves right behind the wait, on the
	 * waiter's own connection, in the round trip of the wait (see
	 * {@link JobReserver#reserveAfterWait}); for the fetch loops of listener containers.
	 * @param onlyWoken whether to reserve only when the wait took a wake-up
	 * @return whether the wait took a wake-up and what the reserve took ({@code null} when it did
	 * not run); {@code null} when this waiter cannot, and nothing was done
	 */
	public @Nullable WaitResult reserveAfterWait(String queue, QueueWaiter waiter, Duration timeout,
			boolean onlyWoken, int max, Duration lease, String workerId, int maxAttempts, int startNow) {
		return reserveAfterWait(queue, waiter, timeout, onlyWoken, max, lease, workerId, maxAttempts, startNow, List.of(),
				(results) -> {
				});
	}

	/**
	 * Like {@link #reserveAfterWait(String, QueueWaiter, Duration, boolean, int, Duration, String, int, int)},
	 * with completions sent in front of the wait in the same write (see {@link JobReserver#reserveAfterWait}).
	 * @param completions jobs to complete first
	 * @param completed takes their results once Redis answered them (before the wait is over), or
	 * {@code null} when they were not recorded; called once whenever there are completions
	 * @return as the other form
	 */
	public @Nullable WaitResult reserveAfterWait(String queue, QueueWaiter waiter, Duration timeout,
			boolean onlyWoken, int max, Duration lease, String workerId, int maxAttempts, int startNow,
			Collection<JobRef> completions, Consumer<@Nullable List<AckResult>> completed) {
		return reserveAfterWait(queue, waiter, timeout, onlyWoken, max, lease, workerId, maxAttempts, startNow,
				completions, completed, null);
	}

	/**
	 * Like {@link #reserveAfterWait(String, QueueWaiter, Duration, boolean, int, Duration, String, int, int,
	 * Collection, Consumer)}, with the jobs the reserve took handed to {@code handOff} as soon as its reply arrives,
	 * on the client's I/O thread, before the waiting thread wakes: a listener container starts a job there without
	 * waiting for its fetch thread. It is given the reservation only when it can be decoded without another call (no
	 * payload was left out of the reply for its size); it must not block and should not throw (one that throws counts
	 * as having taken every job: those it did not take return at their leases' end), and returns how many of the
	 * reservation's jobs, the first ones in order, it took over (see {@link WaitResult#handedOff()}).
	 * @param handOff takes the jobs at once, or {@code null}
	 * @return as the other forms
	 */
	public @Nullable WaitResult reserveAfterWait(String queue, QueueWaiter waiter, Duration timeout,
			boolean onlyWoken, int max, Duration lease, String workerId, int maxAttempts, int startNow,
			Collection<JobRef> completions, Consumer<@Nullable List<AckResult>> completed,
			@Nullable ToIntFunction<Reservation> handOff) {
		if (!(waiter instanceof ListWaiter list)) {
			if (!completions.isEmpty()) {
				completed.accept(null);
			}
			return null;
		}
		return this.reserver.reserveAfterWait(queue, list, timeout, onlyWoken, max, lease, workerId, maxAttempts, startNow,
				completions, completed, handOff);
	}

	@Override
	public <T> T readPayload(ReservedJob job, Type type) {
		return this.context.serializer().deserialize(job.payload(), type);
	}

	@Override
	public AckResult complete(String queue, JobRef job) {
		return completeAll(queue, List.of(job)).get(0);
	}

	@Override
	public List<AckResult> completeAll(String queue, Collection<JobRef> jobs) {
		return this.context.partitioning().byPartition(queue, jobs, (k, refs) -> {
			List<Object> reply = this.context.executor().run(this.context.executor().scripts().complete(), k, this.reserver.completeArgs(refs));
			List<AckResult> results = this.reserver.completeResults(queue, reply);
			if (ScriptReplies.completeBatchesDone(reply) > 0) {
				this.batches.forward(queue, k);
			}
			return results;
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
		QueueKeys k = this.context.partitioning().keysForJob(queue, job.id());
		List<Object> reply = this.context.executor().run(this.context.executor().scripts().fail(), k,
				List.of(encodeUtf8(job.id()), encodeNumber(job.token()), encodeUtf8(error), mode, encodeNumber(delayMs)));
		FailResult result = ScriptReplies.failResult(reply);
		if (result == FailResult.RETRY_SCHEDULED) {
			this.context.record(queue, JobOutcome.FAILED, 1);
		}
		else if (result == FailResult.DEAD_LETTERED) {
			this.context.record(queue, JobOutcome.DEAD_LETTERED, 1);
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
		JobReserver.checkLease(lease);
		return this.context.partitioning().byPartition(queue, jobs, (k, refs) -> ScriptReplies.extendResults(this.context.executor()
			.run(this.context.executor().scripts().extend(), k, ScriptArgs.refArgs(encodeNumber(lease.toMillis()), refs))));
	}

	@Override
	public boolean progress(String queue, JobRef job, @Nullable Object progress) {
		byte[] bytes = (progress != null) ? this.context.serializer().serialize(progress) : new byte[0];
		if (bytes.length > MAX_PROGRESS_SIZE) {
			throw new IllegalArgumentException("Progress of job " + job.id() + " of queue '" + queue + "' has "
					+ bytes.length + " bytes serialized: it must have at most " + MAX_PROGRESS_SIZE);
		}
		return ScriptReplies.progressWritten(this.context.executor().run(this.context.executor().scripts().progress(),
				this.context.partitioning().keysForJob(queue, job.id()), List.of(encodeUtf8(job.id()), encodeNumber(job.token()), bytes)));
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
		return this.context.partitioning().byPartition(queue, jobs, (k, refs) -> ScriptReplies.ackResults(this.context.executor()
			.run(this.context.executor().scripts().release(), k, ScriptArgs.releaseArgs(started, refs))));
	}

	@Override
	public int releaseWorker(String queue, String workerId) {
		WorkerIds.validateIdentity(workerId);
		long total = 0;
		for (QueueKeys k : partitions(queue)) {
			// one bounded slice of the in-flight set per call, so Redis serves others in between
			long cursor = 0;
			do {
				ScriptReplies.WorkerReleaseReply reply = ScriptReplies.workerRelease(this.context.executor().run(
						this.context.executor().scripts().release(), k, List.of(WORKER, encodeUtf8(workerId), encodeNumber(cursor))));
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
			return new ListWaiter(this.context.connectionFactory(), parts[0]);
		}
		return this.wakeups.open(parts);
	}

	/** Load every script into the Redis script cache now instead of on first use. */
	public void preloadScripts() {
		this.context.executor().preload();
	}

	QueueBatches batches() {
		return this.batches;
	}

	JobEnqueuer enqueuer() {
		return this.enqueuer;
	}

	JobReserver reserver() {
		return this.reserver;
	}

	QueueScriptExecutor executor() {
		return this.context.executor();
	}

}
