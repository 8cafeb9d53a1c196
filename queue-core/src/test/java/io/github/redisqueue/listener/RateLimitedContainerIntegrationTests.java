package io.github.redisqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.RateLimit;
import io.github.redisqueue.core.metrics.MicrometerJobEvents;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.RedisClock;
import io.github.redisqueue.testing.redis.TestRedis;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Listener containers on a rate-limited queue: four containers of two templates (two connection
 * factories, as two applications would have) drain 1,000 jobs at 50 per second, never more in
 * any second (handler starts by the Redis clock) nor in any sliding window of 1 s (the script's
 * own hand-out times, read from the lease deadlines), in 20 s, with a bounded number of script
 * calls; a limited container waits without calling Redis and stops at once.
 */
class RateLimitedContainerIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final List<QueueListenerContainer> containers = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	@AfterEach
	void stopContainers() {
		this.containers.forEach(QueueListenerContainer::stop);
		this.containers.clear();
		this.factories.forEach(LettuceConnectionFactory::destroy);
		this.factories.clear();
	}

	/** A template of its own connection factory, as another application would have. */
	private QueueTemplate application(String queue, String limit, SimpleMeterRegistry registry) {
		LettuceConnectionFactory factory = TestRedis.connectionFactory(endpoint());
		this.factories.add(factory);
		QueueTemplate template = new QueueTemplate(factory, new JacksonJobSerializer(),
				QueueSettings.builder().rateLimit(queue, RateLimit.parse(limit)).build());
		template.setJobEvents(new MicrometerJobEvents(registry));
		return template;
	}

	private QueueListenerContainer container(String id, QueueTemplate template, String queue, ContainerOptions options,
			JobListener listener) {
		QueueListenerContainer container = new QueueListenerContainer(id, queue, template, listener, options, null, null);
		this.containers.add(container);
		container.start();
		return container;
	}

	@Test
	@Tag("single-node")
	void fourContainersDrainAThousandJobsAtFiftyPerSecondNeverMore() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		QueueTemplate first = application("limited", "50/1s", registry);
		QueueTemplate second = application("limited", "50/1s", registry);
		List<Instant> starts = Collections.synchronizedList(new ArrayList<>());
		List<Duration> lags = Collections.synchronizedList(new ArrayList<>());
		List<Instant> ends = Collections.synchronizedList(new ArrayList<>());
		List<Instant> handOuts = Collections.synchronizedList(new ArrayList<>());
		ConcurrentLinkedQueue<String> ids = new ConcurrentLinkedQueue<>();
		AtomicInteger done = new AtomicInteger();
		JobListener listener = (job, ack) -> {
			Instant start = RedisClock.now(this.redis);
			starts.add(start);
			handOuts.add(job.leaseUntil().minus(LEASE));
			lags.add(Duration.between(job.leaseUntil().minus(LEASE), start));
			ids.add(job.id());
			// a short piece of work
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
			ends.add(RedisClock.now(this.redis));
			done.incrementAndGet();
		};
		// every job handed out starts at once (no prefetch, 64 threads for 50 jobs a second), so
		// that handler starts follow the hand-outs closely
		ContainerOptions options = ContainerOptions.builder().concurrency(16).prefetch(0).lease(LEASE)
			.shutdownTimeout(Duration.ofSeconds(5)).build();
		container("a", first, "limited", options, listener);
		container("b", first, "limited", options, listener);
		container("c", second, "limited", options, listener);
		container("d", second, "limited", options, listener);
		RedisClock.awaitElapsed(this.redis, Duration.ofMillis(500));
		// the idle containers wake together for the jobs, just after a second of the Redis clock
		// begins: the hand-outs of each window then sit early in a second, so that a handler start
		// that lags its hand-out (a loaded machine) still falls in the second of its hand-out
		Instant now = RedisClock.now(this.redis);
		RedisClock.awaitPast(this.redis, Instant.ofEpochSecond(now.getEpochSecond() + 1).minusMillis(1));
		TestRedis.resetCommandStats(endpoint());
		first.enqueueAll("limited", IntStream.range(0, 1000).boxed().toList(), JobOptions.defaults());

		await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100)).until(() -> done.get() == 1000);
		Map<String, Long> stats = TestRedis.commandStats(endpoint());
		long evalsha = stats.getOrDefault("evalsha", 0L) + stats.getOrDefault("fcall", 0L);

		assertThat(ids).hasSize(1000).doesNotHaveDuplicates();
		Map<Long, Integer> perSecond = new TreeMap<>();
		starts.forEach((start) -> perSecond.merge(start.toEpochMilli() / 1000, 1, Integer::sum));
		List<Instant> sorted = new ArrayList<>(handOuts);
		Collections.sort(sorted);
		Duration drain = Duration.between(sorted.get(0), Collections.max(ends));
		double perSecondCalls = evalsha * 1000.0 / drain.toMillis();
		System.out.println("rate-limited drain: " + drain.toMillis() + " ms, " + evalsha + " script calls ("
				+ Math.round(perSecondCalls) + "/s), " + registry.get("queue.rate.limited").counter().count()
				+ " reserves cut short, starts per second " + perSecond.values() + ", longest start lag "
				+ Collections.max(lags).toMillis() + " ms, first hand-out " + sorted.get(0));
		// handler starts by the Redis clock, per second: never more than 50
		assertThat(perSecond.values()).allSatisfy((count) -> assertThat(count).isLessThanOrEqualTo(50));
		// the script's hand-outs: any 51 consecutive ones span 1 s or more (any 1 s holds at most 50)
		for (int i = 0; i + 50 < sorted.size(); i++) {
			assertThat(Duration.between(sorted.get(i), sorted.get(i + 50))).as("hand-outs %d to %d", i, i + 50)
				.isGreaterThanOrEqualTo(Duration.ofSeconds(1));
		}
		// 1,000 jobs at 50 a second take 19 s at least (the first 50 go at once); a loaded machine
		// may take longer, so only the lower bound is the limit's
		assertThat(drain).isGreaterThanOrEqualTo(Duration.ofSeconds(19));
		// a completion per job (at most 50/s) plus a few reserves per container and window; a
		// container that polled while limited would make thousands of calls per second
		assertThat(perSecondCalls).isLessThan(200);
		assertThat(registry.get("queue.rate.limited").tag("queue", "limited").counter().count()).isPositive();
	}

	@Test
	void aLimitedContainerWaitsWithoutCallingRedisAndStopsAtOnce() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		QueueTemplate template = application("slow", "2/1h", registry);
		template.enqueueAll("slow", IntStream.range(0, 5).boxed().toList(), JobOptions.defaults());
		AtomicInteger handled = new AtomicInteger();
		// the next hand-out is an hour away, and the longest poll interval beyond the wait for the stop
		QueueListenerContainer container = container("slow-container", template, "slow",
				ContainerOptions.builder().concurrency(4).pollInterval(Duration.ofSeconds(30)).build(),
				(job, ack) -> handled.incrementAndGet());

		await().atMost(Duration.ofSeconds(60)).until(() -> handled.get() == 2
				&& registry.find("queue.rate.limited").counter() != null);
		TestRedis.resetCommandStats(endpoint());
		RedisClock.awaitElapsed(this.redis, Duration.ofSeconds(2));
		assertThat(handled).hasValue(2);
		// the completions of the two jobs at most, then nothing: the container waits for the next slot
		Map<String, Long> calls = TestRedis.commandStats(endpoint());
		assertThat(calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("fcall", 0L)).isLessThanOrEqualTo(2);

		// a stop that waited for the wait to end would take up to the poll interval
		CompletableFuture<Void> stopped = CompletableFuture.runAsync(container::stop);
		await().atMost(Duration.ofSeconds(20)).until(stopped::isDone);
		assertThat(container.isRunning()).isFalse();
	}

}
