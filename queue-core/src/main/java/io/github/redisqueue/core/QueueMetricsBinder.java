package io.github.redisqueue.core;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Gauges of queue depth, read from Redis by one background refresh per interval for all queues
 * (one pipelined round trip), never per scrape: {@code queue.jobs} with tags {@code queue} and
 * {@code state} ({@code ready}, {@code delayed}, {@code in_flight}, {@code dead}), and
 * {@code queue.head.age} (how long the next job to run has been ready) and
 * {@code queue.paused} (1 or 0) and {@code queue.throughput} (completions per second over about
 * the last minute, by every consumer) with tag {@code queue}. Queues that appear later get their
 * gauges at the next refresh. The refresh runs on a daemon thread {@code queue-metrics-1}.
 *
 * @since 0.1.0
 */
public class QueueMetricsBinder implements MeterBinder, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(QueueMetricsBinder.class);

	private final QueueAdminOperations operations;

	private final Duration refreshInterval;

	private final Map<String, QueueCounts> latest = new ConcurrentHashMap<>();

	private final Set<String> registered = ConcurrentHashMap.newKeySet();

	private @Nullable MeterRegistry registry;

	private @Nullable ThreadPoolTaskScheduler scheduler;

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
		if (this.scheduler == null) {
			ThreadPoolTaskScheduler refreshes = new ThreadPoolTaskScheduler();
			refreshes.setThreadNamePrefix("queue-metrics-");
			refreshes.setDaemon(true);
			refreshes.initialize();
			refreshes.scheduleWithFixedDelay(this::refresh, this.refreshInterval);
			this.scheduler = refreshes;
		}
	}

	/** Read every queue's counts now and register gauges for new queues. */
	public void refresh() {
		try {
			Map<String, QueueCounts> counts = this.operations.overview().queues();
			this.latest.putAll(counts);
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
		gauge(meters, queue, "ready", QueueCounts::ready);
		gauge(meters, queue, "delayed", QueueCounts::delayed);
		gauge(meters, queue, "in_flight", QueueCounts::inFlight);
		gauge(meters, queue, "dead", QueueCounts::dead);
		TimeGauge.builder("queue.head.age", this, TimeUnit.MILLISECONDS, (binder) -> {
			QueueCounts counts = binder.latest.get(queue);
			return (counts != null && counts.headAge() != null) ? counts.headAge().toMillis() : 0;
		}).tag("queue", queue).description("How long the next job to run has been ready").register(meters);
		Gauge.builder("queue.paused", this, (binder) -> {
			QueueCounts counts = binder.latest.get(queue);
			return (counts != null && counts.paused()) ? 1 : 0;
		}).tag("queue", queue).description("Whether the queue is paused (1) or not (0)").register(meters);
		Gauge.builder("queue.throughput", this, (binder) -> {
			QueueCounts counts = binder.latest.get(queue);
			return (counts != null) ? counts.throughput() : Double.NaN;
		}).tag("queue", queue)
			.description("Jobs completed per second over about the last minute, by every consumer")
			.register(meters);
	}

	private void gauge(MeterRegistry meters, String queue, String state,
			java.util.function.ToLongFunction<QueueCounts> value) {
		Gauge.builder("queue.jobs", this, (binder) -> {
			QueueCounts counts = binder.latest.get(queue);
			return (counts != null) ? value.applyAsLong(counts) : Double.NaN;
		}).tag("queue", queue).tag("state", state).description("Jobs of the queue in the state").register(meters);
	}

	@Override
	public synchronized void close() {
		if (this.scheduler != null) {
			this.scheduler.shutdown();
			this.scheduler = null;
		}
	}

}
