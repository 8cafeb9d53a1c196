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
 * (tag {@code queue}), and counts the reserve calls a queue's rate limit cut short in
 * {@code queue.rate.limited} (tag {@code queue}).
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
