package io.github.redisqueue.core.metrics;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.redisqueue.core.JobEvents;
import io.github.redisqueue.core.JobOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Counts job outcomes of this process in the counter {@code queue.job.outcomes} with tags
 * {@code queue} and {@code outcome} (enqueued, duplicate, completed, failed, dead_lettered,
 * expired, reaped), and times how long reserved jobs waited ready in {@code queue.job.wait}
 * (tag {@code queue}), counts the reserve calls a queue's rate limit cut short in
 * {@code queue.rate.limited} (tag {@code queue}), and the failed fetches of listener containers
 * in {@code queue.fetch.failures} (tags {@code queue} and {@code kind}: {@code retried}, or
 * {@code stopped} when the failure ended the loop; both start at zero when a loop starts).
 *
 * @since 0.1.0
 */
public class MicrometerJobEvents implements JobEvents {

	private final Supplier<@Nullable MeterRegistry> registrySupplier;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	private volatile @Nullable MeterRegistry registry;

	public MicrometerJobEvents(MeterRegistry registry) {
		this(() -> registry);
	}

	/**
	 * Counters on a registry looked up at the first event (so that the registry, its binders and
	 * the template can be created in any order).
	 * @param registry supplies the registry, or {@code null} when there is none
	 */
	public MicrometerJobEvents(Supplier<@Nullable MeterRegistry> registry) {
		this.registrySupplier = registry;
	}

	private final Map<String, Timer> waits = new ConcurrentHashMap<>();

	@Override
	public void waited(String queue, Duration wait) {
		MeterRegistry target = registry();
		if (target != null) {
			this.waits
				.computeIfAbsent(queue, (name) -> Timer.builder("queue.job.wait")
					.description("Time a job waited ready (since its enqueue, due time or return to ready) until it was reserved")
					.tag("queue", name)
					.register(target))
				.record(wait);
		}
	}

	private final Map<String, Counter> rateLimited = new ConcurrentHashMap<>();

	@Override
	public void rateLimited(String queue) {
		MeterRegistry target = registry();
		if (target != null) {
			this.rateLimited
				.computeIfAbsent(queue, (name) -> Counter.builder("queue.rate.limited")
					.description("Reserve calls of this process that the queue's rate limit cut short")
					.tag("queue", name)
					.register(target))
				.increment();
		}
	}

	private final Map<String, Counter> fetchFailures = new ConcurrentHashMap<>();

	@Override
	public void fetchStarted(String queue) {
		fetchFailures(queue, false);
		fetchFailures(queue, true);
	}

	@Override
	public void fetchFailed(String queue, boolean stopped) {
		Counter failures = fetchFailures(queue, stopped);
		if (failures != null) {
			failures.increment();
		}
	}

	private @Nullable Counter fetchFailures(String queue, boolean stopped) {
		MeterRegistry target = registry();
		if (target == null) {
			return null;
		}
		String kind = stopped ? "stopped" : "retried";
		return this.fetchFailures.computeIfAbsent(queue + '\0' + kind, (key) -> Counter.builder("queue.fetch.failures")
			.description("Failed fetches of this process's listener containers: retried, or one that stopped the loop")
			.tag("queue", queue)
			.tag("kind", kind)
			.register(target));
	}

	private @Nullable MeterRegistry registry() {
		MeterRegistry meters = this.registry;
		if (meters == null) {
			meters = this.registrySupplier.get();
			this.registry = meters;
		}
		return meters;
	}

	@Override
	public void record(String queue, JobOutcome outcome, long count) {
		MeterRegistry target = registry();
		if (target == null) {
			return;
		}
		String tag = outcome.name().toLowerCase(Locale.ROOT);
		this.counters
			.computeIfAbsent(queue + '\0' + tag, (key) -> Counter.builder("queue.job.outcomes")
				.description("Jobs of the queue that met the outcome in this process")
				.tag("queue", queue)
				.tag("outcome", tag)
				.register(target))
			.increment(count);
	}

}
