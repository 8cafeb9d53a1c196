package io.github.redisqueue.health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueCounts;
import io.github.redisqueue.core.QueueOverview;
import io.github.redisqueue.listener.QueueListenerContainer;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Health of the queues. DOWN, with the error, when Redis does not answer within the timeout or
 * a listener container stopped fetching on its own; otherwise UP with, per queue, the counts,
 * the age of the next ready job and the paused flag, plus the number of live workers; or the
 * configured status when a threshold is passed. One pipelined round trip
 * ({@link QueueAdminOperations#overview()}); it never scans jobs. While an earlier check still
 * waits for Redis, a new one waits on the same answer instead of sending another. Redis is asked
 * on daemon threads ({@code queue-health-1} and on), so one that hangs never keeps the JVM from
 * exiting.
 *
 * @since 0.1.0
 */
public class QueueHealthIndicator extends AbstractHealthIndicator {

	private final QueueAdminOperations operations;

	private final Thresholds thresholds;

	private final Duration timeout;

	private final Supplier<Collection<QueueListenerContainer>> containers;

	private final SimpleAsyncTaskExecutor checks = new SimpleAsyncTaskExecutor("queue-health-");

	private @Nullable CompletableFuture<QueueOverview> pending;

	/**
	 * @param operations the engine
	 * @param thresholds when to report the threshold status
	 * @param timeout the longest wait for Redis
	 * @param containers the application's listener containers
	 */
	public QueueHealthIndicator(QueueAdminOperations operations, Thresholds thresholds, Duration timeout,
			Supplier<Collection<QueueListenerContainer>> containers) {
		super("Queues are not reachable in Redis");
		this.operations = operations;
		this.thresholds = thresholds;
		this.timeout = timeout;
		this.containers = containers;
		this.checks.setDaemon(true);
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) throws Exception {
		Map<String, String> failed = new LinkedHashMap<>();
		for (QueueListenerContainer container : this.containers.get()) {
			Throwable failure = container.getFailure();
			if (failure != null) {
				failed.put(container.getId(), failure.toString());
			}
		}
		if (!failed.isEmpty()) {
			// kept when Redis fails too: the same builder turns DOWN with the error
			builder.withDetail("failedContainers", failed);
		}
		QueueOverview overview = overview();
		Map<String, Object> queues = new LinkedHashMap<>();
		List<String> exceeded = new ArrayList<>();
		overview.queues().forEach((name, counts) -> {
			queues.put(name, details(counts));
			exceeded.addAll(this.thresholds.exceeded(counts));
		});
		builder.withDetail("queues", queues).withDetail("workers", overview.workers().size());
		if (!failed.isEmpty()) {
			builder.down();
		}
		else if (exceeded.isEmpty()) {
			builder.up();
		}
		else {
			builder.status(this.thresholds.status()).withDetail("thresholdsExceeded", exceeded);
		}
	}

	private QueueOverview overview() throws Exception {
		CompletableFuture<QueueOverview> future;
		synchronized (this) {
			future = this.pending;
			if (future == null || future.isDone()) {
				future = CompletableFuture.supplyAsync(this.operations::overview, this.checks);
				this.pending = future;
			}
		}
		try {
			return future.get(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException("Redis did not answer within " + this.timeout, ex);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof Exception cause) ? cause : ex;
		}
	}

	private static Map<String, Object> details(QueueCounts counts) {
		Map<String, Object> detail = new LinkedHashMap<>();
		detail.put("ready", counts.ready());
		detail.put("delayed", counts.delayed());
		detail.put("inFlight", counts.inFlight());
		detail.put("dead", counts.dead());
		detail.put("paused", counts.paused());
		detail.put("headAgeMillis", (counts.headAge() != null) ? counts.headAge().toMillis() : 0);
		return detail;
	}

	/**
	 * Limits past which the health turns to {@code status}; a {@code null} limit is not checked.
	 *
	 * @param maxDead dead letters per queue
	 * @param maxReady ready jobs per queue
	 * @param maxHeadAge how long the next job of a queue may have been ready
	 * @param status the status when a limit is passed (e.g. {@code OUT_OF_SERVICE})
	 */
	public record Thresholds(@Nullable Long maxDead, @Nullable Long maxReady, @Nullable Duration maxHeadAge,
			String status) {

		/** No thresholds. */
		public static Thresholds none() {
			return new Thresholds(null, null, null, "OUT_OF_SERVICE");
		}

		List<String> exceeded(QueueCounts counts) {
			List<String> exceeded = new ArrayList<>();
			String name = counts.queue();
			if (this.maxDead != null && counts.dead() > this.maxDead) {
				exceeded.add(name + ": " + counts.dead() + " dead letters > " + this.maxDead);
			}
			if (this.maxReady != null && counts.ready() > this.maxReady) {
				exceeded.add(name + ": " + counts.ready() + " ready jobs > " + this.maxReady);
			}
			Duration age = counts.headAge();
			if (this.maxHeadAge != null && age != null && age.compareTo(this.maxHeadAge) > 0) {
				exceeded.add(name + ": next job ready for " + age.toMillis() + " ms > " + this.maxHeadAge.toMillis()
						+ " ms");
			}
			return exceeded;
		}

	}

}
