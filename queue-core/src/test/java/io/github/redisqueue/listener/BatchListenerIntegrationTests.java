package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

import io.github.redisqueue.annotation.QueueListener;
import io.github.redisqueue.core.Batch;
import io.github.redisqueue.core.BatchState;
import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobResult;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.support.BatchCompletion;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Batches and groups with listener containers on a real Redis: handler results, the completion
 * handler, no head-of-line blocking behind a batch at its cap, and groups that keep order.
 */
class BatchListenerIntegrationTests extends AbstractRedisIntegrationTests {

	private AnnotationConfigApplicationContext context;

	private final List<QueueListenerContainer> containers = new ArrayList<>();

	private final List<QueueTemplate> templates = new ArrayList<>();

	@AfterEach
	void close() {
		this.containers.forEach(QueueListenerContainer::stop);
		this.templates.forEach(QueueTemplate::destroy);
		if (this.context != null) {
			this.context.close();
		}
	}

	private QueueTemplate template(QueueSettings settings) {
		QueueTemplate template = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(), settings);
		this.templates.add(template);
		return template;
	}

	private void container(QueueTemplate queues, String queue, int concurrency, JobListener listener) {
		QueueListenerContainer container = new QueueListenerContainer(queue + "-container", queue, queues, listener,
				ListenerTestSupport.fast(ContainerOptions.defaults()).toBuilder().concurrency(concurrency).build(), null,
				null);
		this.containers.add(container);
		container.start();
	}

	@Test
	void handlerResultsAreStoredAndTheCompletionHandlerRunsOnceWithTheCounts() throws Exception {
		this.context = ListenerTestSupport.context(TestRedis.connectionFactory(endpoint()), UnaryOperator.identity(),
				Resizer.class);
		QueueTemplate queues = this.context.getBean(QueueTemplate.class);
		Resizer resizer = this.context.getBean(Resizer.class);

		Batch batch = queues.batch("resize")
			.maxConcurrency(2)
			.onComplete("resize-done", "request-1")
			.addAll(List.of(1, 2, 3, 4, 5))
			.submit();

		BatchStatus done = batch.completion().get(20, TimeUnit.SECONDS);
		assertThat(done.state()).isEqualTo(BatchState.COMPLETED);
		assertThat(batch.results(String.class, 0, 10)).extracting(JobResult::result)
			.containsExactly("piece-1.png", "piece-2.png", "piece-3.png", "piece-4.png", "piece-5.png");
		await().atMost(Duration.ofSeconds(10)).until(() -> resizer.completions.size() == 1);
		assertThat(resizer.completions.get(0))
			.isEqualTo("request-1: " + new BatchCompletion("resize", batch.id(), false, 5, 5, 0, 0));
		await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(30))
			.until(() -> resizer.completions.size() == 1);
	}

	@Test
	void aPlainJobDoesNotWaitBehindTheSubJobsOfABatchAtItsCap() throws Exception {
		QueueTemplate queues = template(QueueSettings.defaults());
		CountDownLatch release = new CountDownLatch(1);
		AtomicLong plainStarted = new AtomicLong();
		container(queues, "mixed", 4, (job, ack) -> {
			String payload = queues.readPayload(job, String.class);
			if (payload.equals("plain")) {
				plainStarted.set(release.getCount());
			}
			else {
				// far longer than the waits below: a plain job that waited behind it would not start in time
				release.await(5, TimeUnit.MINUTES);
			}
		});
		Batch batch = queues.batch("mixed").maxConcurrency(1).addAll(IntStream.range(0, 1000).mapToObj((i) -> "sub-" + i).toList()).submit();
		await().atMost(Duration.ofSeconds(10)).until(() -> batch.status().active() == 1);

		queues.enqueue("mixed", "plain");

		// it ran while the batch's only admitted sub-job still held its place
		await().atMost(Duration.ofSeconds(60)).until(() -> plainStarted.get() != 0);
		assertThat(plainStarted.get()).as("sub-jobs not released yet when the plain job started").isEqualTo(1);
		assertThat(batch.status().active()).isEqualTo(1);
		assertThat(batch.status().waiting()).isEqualTo(999);
		release.countDown();
	}

	@Test
	void aGroupOfConcurrencyOneKeepsOrderUnderEightConsumers() {
		QueueTemplate queues = template(QueueSettings.defaults());
		Map<String, List<Integer>> order = new ConcurrentHashMap<>();
		Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
		AtomicInteger maxRunning = new AtomicInteger();
		AtomicInteger overlapAcrossKeys = new AtomicInteger();
		AtomicInteger runningTotal = new AtomicInteger();
		container(queues, "orders", 8, (job, ack) -> {
			String[] payload = queues.<String>readPayload(job, String.class).split(":");
			AtomicInteger mine = running.computeIfAbsent(payload[0], (k) -> new AtomicInteger());
			maxRunning.accumulateAndGet(mine.incrementAndGet(), Math::max);
			overlapAcrossKeys.accumulateAndGet(runningTotal.incrementAndGet(), Math::max);
			order.computeIfAbsent(payload[0], (k) -> new CopyOnWriteArrayList<>()).add(Integer.parseInt(payload[1]));
			// a little work, so that handlers overlap
			LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(2_000_000));
			runningTotal.decrementAndGet();
			mine.decrementAndGet();
		});
		List<String> keys = List.of("customer-a", "customer-b", "customer-c", "customer-d");
		for (int i = 0; i < 40; i++) {
			for (String key : keys) {
				queues.enqueue("orders", key + ":" + i, JobOptions.builder().group(key).build());
			}
		}

		await().atMost(Duration.ofSeconds(30))
			.until(() -> order.values().stream().mapToInt(List::size).sum() == 160);
		List<Integer> expected = IntStream.range(0, 40).boxed().toList();
		keys.forEach((key) -> assertThat(order.get(key)).as(key).isEqualTo(expected));
		assertThat(maxRunning).hasValue(1);
		assertThat(overlapAcrossKeys.get()).as("keys run side by side").isGreaterThan(1);
	}

	@Test
	void aGroupRunsAsManyJobsAtOnceAsItsQueuesGroupConcurrencyWhileOtherKeysFlow() {
		QueueTemplate queues = template(QueueSettings.builder().groupConcurrency("tenants", 2).build());
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger heavyRunning = new AtomicInteger();
		AtomicInteger heavyMax = new AtomicInteger();
		AtomicInteger lightDone = new AtomicInteger();
		container(queues, "tenants", 6, (job, ack) -> {
			if (queues.<String>readPayload(job, String.class).startsWith("heavy")) {
				heavyMax.accumulateAndGet(heavyRunning.incrementAndGet(), Math::max);
				release.await(30, TimeUnit.SECONDS);
				heavyRunning.decrementAndGet();
			}
			else {
				lightDone.incrementAndGet();
			}
		});
		for (int i = 0; i < 6; i++) {
			queues.enqueue("tenants", "heavy-" + i, JobOptions.builder().group("big-tenant").build());
		}
		for (int i = 0; i < 5; i++) {
			queues.enqueue("tenants", "light-" + i, JobOptions.builder().group("small-tenant-" + i).build());
		}

		await().atMost(Duration.ofSeconds(10)).until(() -> lightDone.get() == 5 && heavyRunning.get() == 2);
		assertThat(heavyMax).hasValue(2);
		release.countDown();
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.redis.hasKey("{rq:tenants}:gates"));
		assertThat(heavyMax).hasValue(2);
	}

	static class Resizer {

		final List<String> completions = new CopyOnWriteArrayList<>();

		@QueueListener("resize")
		String resize(int piece) {
			return "piece-" + piece + ".png";
		}

		@QueueListener("resize-done")
		void done(String request, BatchCompletion batch) {
			this.completions.add(request + ": " + batch);
		}

	}

}
