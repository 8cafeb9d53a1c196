package io.github.redisqueue.core.metrics;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueCounts;
import io.github.redisqueue.core.QueueOverview;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Gauges of queue depth, read from Redis by one background refresh per interval for all queues
 * (one pipelined round trip), never per scrape: {@code queue.jobs} with tags {@code queue} and
 * {@code state} ({@code ready}, {@code delayed}, {@code in_flight}, {@code dead});
 * {@code queue.batch.jobs} with tags {@code queue} and {@code state} ({@code waiting}: sub-jobs of
 * open batches waiting for a place within their cap, in no state of {@code queue.jobs};
 * {@code active}: admitted ones, also counted there), summed over the queue's open batches (one
 * more script call per 100 of them, only for queues that have some); and
 * {@code queue.head.age} (how long the next job to run has been ready), {@code queue.paused} (1
 * or 0), {@code queue.throughput} (completions per second over about the last minute, by every
 * consumer), {@code queue.batches.open} (batches not finished yet) and {@code queue.workers} (live
 * workers that consume the queue, from the worker registry read in the same round trip) with tag
 * {@code queue}.
 * {@code queue.group.jobs} with tags {@code queue} and {@code state} ({@code waiting}: jobs of
 * groups waiting for their turn, in no state of {@code queue.jobs}; {@code active}: admitted ones)
 * comes from counters the scripts keep.
 * {@code queue.batches.finished} with tags {@code queue} and {@code state} ({@code completed},
 * {@code cancelled}) counts finished batches, a running total that Redis keeps for every process.
 * Queues that appear later get their meters at the next refresh. The refresh runs on a daemon
 * thread {@code queue-metrics-1} from the binding to a registry on.
 *
 * <p>In a Spring context it follows the context's lifecycle: a stop (or a pause, as of a cached
 * test context) ends the refreshes, and so every Redis call, before the connection factory
 * stops; a start resumes them, with a refresh at once. The gauges keep their last values
 * meanwhile.
 *
 * @since 0.1.0
 */
public class QueueMetricsBinder implements MeterBinder, SmartLifecycle, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(QueueMetricsBinder.class);

	private static final String JOBS = "Jobs of the queue in the state";

	private static final String BATCH_JOBS = "Sub-jobs of open batches waiting for a place within their cap, "
			+ "or admitted";

	private static final String GROUP_JOBS = "Jobs of groups waiting for their turn, or admitted";

	/** Most open batches of one queue summed per refresh: 100 pages. */
	public static final int MAX_BATCHES_SUMMED = 100 * QueueAdmin.MAX_BATCH_PAGE;

	private final QueueAdminOperations operations;

	private final Duration refreshInterval;

	private final Map<String, QueueCounts> latest = new ConcurrentHashMap<>();

	private final Map<String, BatchJobs> batchJobs = new ConcurrentHashMap<>();

	private final Map<String, Long> workers = new ConcurrentHashMap<>();

	private final Set<String> registered = ConcurrentHashMap.newKeySet();

	private @Nullable MeterRegistry registry;

	private @Nullable ThreadPoolTaskScheduler scheduler;

	// set by a lifecycle stop or a close: no refresh is scheduled until the next start
	private boolean stopped;

	// set by a lifecycle start, cleared by a stop
	private boolean started;

	/**
	 * @param operations the engine
	 * @param refreshInterval time between refreshes
	 */
	public QueueMetricsBinder(QueueAdminOperations operations, Duration refreshInterval) {
		this.operations = operations;
		this.refreshInterval = refreshInterval;
	}

	@Override
	public synchronized void bindTo(MeterRegistry registry) {
		this.registry = registry;
		if (!this.stopped) {
			schedule();
		}
	}

	private void schedule() {
		if (this.scheduler == null) {
			ThreadPoolTaskScheduler refreshes = new ThreadPoolTaskScheduler();
			refreshes.setThreadNamePrefix("queue-metrics-");
			refreshes.setDaemon(true);
			// a refresh under way ends before the stop returns, so no call follows it
			refreshes.setWaitForTasksToCompleteOnShutdown(true);
			refreshes.setAwaitTerminationMillis(this.refreshInterval.plusSeconds(5).toMillis());
			refreshes.initialize();
			refreshes.scheduleWithFixedDelay(this::refresh, this.refreshInterval);
			this.scheduler = refreshes;
		}
	}

	private void cancel() {
		ThreadPoolTaskScheduler refreshes = this.scheduler;
		this.scheduler = null;
		if (refreshes != null) {
			refreshes.shutdown();
		}
	}

	/** Refresh on schedule again, once bound to a registry (a lifecycle start). */
	@Override
	public synchronized void start() {
		this.stopped = false;
		this.started = true;
		if (this.registry != null) {
			schedule();
		}
	}

	/** Stop refreshing until the next {@link #start()}; a refresh under way ends first. */
	@Override
	public synchronized void stop() {
		this.stopped = true;
		this.started = false;
		cancel();
	}

	@Override
	public synchronized boolean isRunning() {
		return this.started || this.scheduler != null;
	}

	/**
	 * Stops before the connection factory: Spring Data Redis's factories stop in phase 0, and a
	 * higher phase stops earlier.
	 */
	@Override
	public int getPhase() {
		return DEFAULT_PHASE;
	}

	/** Read every queue's counts now and register gauges for new queues. */
	public void refresh() {
		try {
			QueueOverview overview = this.operations.overview();
			Map<String, QueueCounts> counts = overview.queues();
			this.latest.putAll(counts);
			Map<String, Long> consumers = new HashMap<>();
			overview.workers()
				.forEach((worker) -> Set.copyOf(worker.queues()).forEach((queue) -> consumers.merge(queue, 1L, Long::sum)));
			counts.keySet().forEach((queue) -> this.workers.put(queue, consumers.getOrDefault(queue, 0L)));
			counts.forEach((queue, queueCounts) -> this.batchJobs.put(queue, sumBatchJobs(queue, queueCounts)));
			MeterRegistry meters = this.registry;
			if (meters != null) {
				counts.keySet().forEach((queue) -> register(meters, queue));
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not refresh queue gauges; keeping the last values", ex);
		}
	}

	private void register(MeterRegistry meters, String queue) {
		if (!this.registered.add(queue)) {
			return;
		}
		gauge(meters, "queue.jobs", queue, "ready", QueueCounts::ready, JOBS);
		gauge(meters, "queue.jobs", queue, "delayed", QueueCounts::delayed, JOBS);
		gauge(meters, "queue.jobs", queue, "in_flight", QueueCounts::inFlight, JOBS);
		gauge(meters, "queue.jobs", queue, "dead", QueueCounts::dead, JOBS);
		batchJobsGauge(meters, queue, "waiting", BatchJobs::waiting);
		batchJobsGauge(meters, queue, "active", BatchJobs::active);
		gauge(meters, "queue.group.jobs", queue, "waiting", (counts) -> Math.max(0, counts.total("groupWaiting")),
				GROUP_JOBS);
		gauge(meters, "queue.group.jobs", queue, "active", (counts) -> Math.max(0, counts.total("groupActive")),
				GROUP_JOBS);
		Gauge.builder("queue.batches.open", this, (binder) -> value(binder, queue, QueueCounts::openBatches))
			.tag("queue", queue)
			.description("Batches opened and not finished yet")
			.register(meters);
		finished(meters, queue, "completed", "batchesCompleted");
		finished(meters, queue, "cancelled", "batchesCancelled");
		TimeGauge.builder("queue.head.age", this, TimeUnit.MILLISECONDS, (binder) -> {
			QueueCounts counts = binder.latest.get(queue);
			return (counts != null && counts.headAge() != null) ? counts.headAge().toMillis() : 0;
		}).tag("queue", queue).description("How long the next job to run has been ready").register(meters);
		Gauge.builder("queue.paused", this, (binder) -> {
			QueueCounts counts = binder.latest.get(queue);
			return (counts != null && counts.paused()) ? 1 : 0;
		}).tag("queue", queue).description("Whether the queue is paused (1) or not (0)").register(meters);
		Gauge.builder("queue.workers", this, (binder) -> binder.workers.getOrDefault(queue, 0L))
			.tag("queue", queue)
			.description("Live workers (heartbeat not expired) that consume the queue")
			.register(meters);
		Gauge.builder("queue.throughput", this, (binder) -> {
			QueueCounts counts = binder.latest.get(queue);
			return (counts != null) ? counts.throughput() : Double.NaN;
		}).tag("queue", queue)
			.description("Jobs completed per second over about the last minute, by every consumer")
			.register(meters);
	}

	private void gauge(MeterRegistry meters, String name, String queue, String state,
			ToLongFunction<QueueCounts> value, String description) {
		Gauge.builder(name, this, (binder) -> value(binder, queue, value))
			.tag("queue", queue)
			.tag("state", state)
			.description(description)
			.register(meters);
	}

	private void batchJobsGauge(MeterRegistry meters, String queue, String state, ToLongFunction<BatchJobs> value) {
		Gauge.builder("queue.batch.jobs", this, (binder) -> {
			BatchJobs jobs = binder.batchJobs.get(queue);
			return (jobs != null) ? value.applyAsLong(jobs) : Double.NaN;
		}).tag("queue", queue).tag("state", state).description(BATCH_JOBS).register(meters);
	}

	/**
	 * The waiting and admitted sub-jobs of the queue's open batches, summed over pages of
	 * {@link QueueAdminOperations#batches}, oldest batches first, at most
	 * {@link #MAX_BATCHES_SUMMED} of them; no call when the queue's totals show no open batch.
	 */
	private BatchJobs sumBatchJobs(String queue, QueueCounts counts) {
		if (counts.openBatches() == 0) {
			return new BatchJobs(0, 0);
		}
		long waiting = 0;
		long active = 0;
		for (int offset = 0; offset < MAX_BATCHES_SUMMED; offset += QueueAdmin.MAX_BATCH_PAGE) {
			List<BatchStatus> page = this.operations.batches(queue, offset, QueueAdmin.MAX_BATCH_PAGE);
			for (BatchStatus batch : page) {
				waiting += batch.waiting();
				active += batch.active();
			}
			if (page.size() < QueueAdmin.MAX_BATCH_PAGE) {
				break;
			}
		}
		return new BatchJobs(waiting, active);
	}

	/** Batches that finished in the state, a running total kept in Redis for every process. */
	private void finished(MeterRegistry meters, String queue, String state, String total) {
		FunctionCounter.builder("queue.batches.finished", this, (binder) -> {
			QueueCounts counts = binder.latest.get(queue);
			return (counts != null) ? counts.total(total) : 0;
		}).tag("queue", queue).tag("state", state).description("Batches of the queue that finished in the state")
			.register(meters);
	}

	private static double value(QueueMetricsBinder binder, String queue, ToLongFunction<QueueCounts> value) {
		QueueCounts counts = binder.latest.get(queue);
		return (counts != null) ? value.applyAsLong(counts) : Double.NaN;
	}

	/** Sub-jobs of a queue's open batches waiting for a place, and admitted. */
	private record BatchJobs(long waiting, long active) {
	}

	@Override
	public synchronized void close() {
		this.stopped = true;
		cancel();
	}

}
