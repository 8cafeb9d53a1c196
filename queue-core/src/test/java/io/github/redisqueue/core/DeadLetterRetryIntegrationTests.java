package io.github.redisqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.stream.IntStream;

import io.github.redisqueue.core.script.InspectReplies;
import io.github.redisqueue.core.script.QueueScriptExecutor;
import io.github.redisqueue.core.script.ScriptArgs;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.RedisClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Retrying dead letters at the edges: a retry respects uniqueness and clears a past expiry;
 * retrying all dead jobs touches each at most once per call even while consumers kill them again;
 * "forever" uniqueness windows are refused at the API.
 */
class DeadLetterRetryIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static JobOptions unique(String key) {
		return JobOptions.builder().uniqueKey(key).build();
	}

	// F01
	@Test
	void retryDeadOfAJobWhoseUniquenessKeyIsHeldByAnotherLiveJobIsRefused() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String a = queues.enqueue("inv", "A", unique("invoice-42")).id();
		assertThat(queues.deadLetter("inv", queues.reserve("inv", 1, LEASE).get(0).ref(), "gave up"))
			.isEqualTo(FailResult.DEAD_LETTERED);
		EnqueueResult b = queues.enqueue("inv", "B", unique("invoice-42"));
		assertThat(b.duplicate()).isFalse();

		assertThat(admin.retryDead("inv", a)).isFalse();

		JobInfo dead = admin.job("inv", a).orElseThrow();
		assertThat(dead.state()).isEqualTo(JobState.DEAD);
		assertThat(dead.lastError()).contains("invoice-42");
		assertThat(admin.deadLetters("inv", 0, 10)).singleElement().satisfies((job) -> {
			assertThat(job.id()).isEqualTo(a);
			assertThat(job.error()).contains("invoice-42");
		});
		assertThat(queues.enqueue("inv", "C", unique("invoice-42"))).isEqualTo(new EnqueueResult(b.id(), true));
		assertThat(queues.reserve("inv", 10, LEASE)).extracting(ReservedJob::id).containsExactly(b.id());
	}

	// F01
	@Test
	void retryDeadWorksOnceTheOtherJobCompletedAndTheKeyThenPointsAtTheRetriedJob() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String a = queues.enqueue("inv", "A", unique("invoice-42")).id();
		queues.deadLetter("inv", queues.reserve("inv", 1, LEASE).get(0).ref(), "gave up");
		String b = queues.enqueue("inv", "B", unique("invoice-42")).id();
		assertThat(admin.retryDead("inv", a)).isFalse();

		ReservedJob running = queues.reserve("inv", 1, LEASE).get(0);
		assertThat(running.id()).isEqualTo(b);
		assertThat(queues.complete("inv", running.ref())).isEqualTo(AckResult.OK);

		assertThat(admin.retryDead("inv", a)).isTrue();
		assertThat(admin.job("inv", a).orElseThrow().state()).isEqualTo(JobState.READY);
		assertThat(queues.enqueue("inv", "C", unique("invoice-42"))).isEqualTo(new EnqueueResult(a, true));
		assertThat(queues.reserve("inv", 10, LEASE)).extracting(ReservedJob::id).containsExactly(a);
	}

	// F01: retryAllDead applies the same rule to each job
	@Test
	void retryAllDeadLeavesDeadTheJobsWhoseKeyIsHeldAndRetriesTheOthers() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String a = queues.enqueue("inv", "A", unique("invoice-42")).id();
		String free = queues.enqueue("inv", "D", unique("invoice-43")).id();
		for (ReservedJob job : queues.reserve("inv", 2, LEASE)) {
			queues.deadLetter("inv", job.ref(), "gave up");
		}
		String b = queues.enqueue("inv", "B", unique("invoice-42")).id();

		assertThat(admin.retryAllDead("inv")).isEqualTo(1);

		assertThat(admin.job("inv", a).orElseThrow().state()).isEqualTo(JobState.DEAD);
		assertThat(admin.job("inv", free).orElseThrow().state()).isEqualTo(JobState.READY);
		assertThat(queues.reserve("inv", 10, LEASE)).extracting(ReservedJob::id).containsExactlyInAnyOrder(b, free);
	}

	// F02
	@Test
	void retryDeadOfAJobThatExpiredRunsInsteadOfExpiringAgain() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("exp", "late", JobOptions.builder().expireAfter(Duration.ofMillis(200)).build())
			.id();
		RedisClock.awaitPast(this.redis, admin.job("exp", id).orElseThrow().expireAt());
		assertThat(queues.reserve("exp", 1, LEASE)).isEmpty();
		assertThat(admin.job("exp", id).orElseThrow().lastError()).isEqualTo("expired");

		assertThat(admin.retryDead("exp", id)).isTrue();

		assertThat(admin.reapOnce("exp").expired()).isZero();
		assertThat(queues.reserve("exp", 1, LEASE)).singleElement().satisfies((job) -> {
			assertThat(job.id()).isEqualTo(id);
			assertThat(job.attempt()).isEqualTo(1);
		});
		assertThat(admin.counts("exp").total("expired")).isEqualTo(1);
	}

	// F02
	@Test
	void retryDeadOfAJobThatFailedAfterItsExpiryTimeRunsAgain() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("exp", "x", JobOptions.builder().expireAfter(Duration.ofMillis(300)).build()).id();
		ReservedJob job = queues.reserve("exp", 1, LEASE).get(0);
		assertThat(queues.deadLetter("exp", job.ref(), "failed for real")).isEqualTo(FailResult.DEAD_LETTERED);
		RedisClock.awaitPast(this.redis, admin.job("exp", id).orElseThrow().expireAt());

		assertThat(admin.retryDead("exp", id)).isTrue();

		assertThat(admin.reapOnce("exp").expired()).isZero();
		assertThat(queues.reserve("exp", 1, LEASE)).extracting(ReservedJob::id).containsExactly(id);
		assertThat(admin.counts("exp").total("expired")).isZero();
	}

	// F16
	@Test
	void retryAllDeadTouchesEachDeadJobOnceWhileConsumersFailThemAgainAtOnce() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().reapBatch(10).build());
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("f16", IntStream.range(0, 50).boxed().toList(), JobOptions.builder().maxAttempts(1).build());
		for (ReservedJob job : queues.reserve("f16", 50, LEASE)) {
			queues.retry("f16", job.ref(), "fails at once", Duration.ZERO);
		}
		assertThat(admin.counts("f16").dead()).isEqualTo(50);

		long retried = withConsumers(queues, "f16",
				(consumer, job) -> consumer.retry("f16", job.ref(), "fails at once", Duration.ZERO),
				() -> admin.retryAllDead("f16"));

		assertThat(retried).isBetween(1L, 50L);
	}

	/**
	 * The race behind a rare failure of the test above: a step of retryAllDead retries a job at
	 * server time T, a consumer fails it again within that millisecond, and its death stamped T fell
	 * within the bound (T) of the call's next steps, which retried it a second time. The same
	 * millisecond is made certain here by recording the retry a minute ahead of the Redis clock.
	 */
	@Test
	void aRetriedJobThatDiesAgainWithinTheMillisecondOfItsRetryIsLeftForTheNextRetryAllCall() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("race", "x", JobOptions.builder().maxAttempts(1).build()).id();
		queues.retry("race", queues.reserve("race", 1, LEASE).get(0).ref(), "fails at once", Duration.ZERO);
		assertThat(admin.retryDead("race", id)).isTrue();
		ReservedJob again = queues.reserve("race", 1, LEASE).get(0);
		long retriedAt = RedisClock.now(this.redis).toEpochMilli() + 60_000;
		new JobRecords(this.redis, queues, "race").put(id, "readyAt", Long.toString(retriedAt));

		assertThat(queues.retry("race", again.ref(), "fails again", Duration.ZERO)).isEqualTo(FailResult.DEAD_LETTERED);

		Double diedAt = this.redis.opsForZSet().score(queues.keys("race").key("dead"), id);
		assertThat(diedAt).isNotNull();
		assertThat(diedAt.longValue()).as("stamped after its retry").isGreaterThan(retriedAt);
		// a later step of the call that retried it (bounded by that call's first step) passes over it
		QueueScriptExecutor executor = queues.executor();
		List<Object> step = executor.run(executor.scripts().dead(), queues.keys("race"),
				List.of(ScriptArgs.encodeAscii("retry"), ScriptArgs.encodeNumber(10),
						ScriptArgs.encodeNumber(retriedAt), ScriptArgs.encodeNumber(1)));
		assertThat(InspectReplies.deadOp(step).touched()).isZero();
		assertThat(admin.retryAllDead("race")).as("the next call retries it").isEqualTo(1);
	}

	// F16 with F02's expired jobs
	@Test
	void retryAllDeadOfExpiredJobsReturnsAtOnceWhileConsumersRunAndTheJobsRun() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().reapBatch(10).build());
		QueueAdmin admin = new QueueAdmin(queues);
		List<EnqueueResult> enqueued = queues.enqueueAll("f16", IntStream.range(0, 50).boxed().toList(),
				JobOptions.builder().expireAfter(Duration.ofMillis(200)).build());
		RedisClock.awaitPast(this.redis, admin.job("f16", enqueued.get(49).id()).orElseThrow().expireAt());
		// each reserve dead-letters a bounded number of expired jobs (F08)
		for (int call = 0; call < 50 && admin.counts("f16").dead() < 50; call++) {
			assertThat(queues.reserve("f16", 50, LEASE)).isEmpty();
		}
		assertThat(admin.counts("f16").dead()).isEqualTo(50);

		long retried = withConsumers(queues, "f16", (consumer, job) -> consumer.complete("f16", job.ref()), () -> {
			long count = admin.retryAllDead("f16");
			// the consumers run every retried job
			await().atMost(Duration.ofSeconds(10)).until(() -> admin.counts("f16").total("completed") == 50);
			return count;
		});

		assertThat(retried).isBetween(1L, 50L);
		assertThat(admin.counts("f16").dead()).isZero();
		assertThat(admin.counts("f16").total("expired")).isEqualTo(50);
	}

	/**
	 * Runs {@code call} (bounded to 5 s) while three consumers reserve jobs of the queue and handle
	 * each with {@code handler}, then stops them.
	 */
	private long withConsumers(QueueTemplate queues, String queue, BiConsumer<QueueTemplate, ReservedJob> handler,
			java.util.concurrent.Callable<Long> call) throws Exception {
		AtomicBoolean stop = new AtomicBoolean();
		ExecutorService consumers = Executors.newFixedThreadPool(3);
		List<Future<?>> running = new ArrayList<>();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		for (int i = 0; i < 3; i++) {
			QueueTemplate consumer = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
					queues.getSettings());
			running.add(consumers.submit(() -> {
				while (!stop.get() && System.nanoTime() < deadline) {
					List<ReservedJob> jobs = consumer.reserve(queue, 10, LEASE);
					jobs.forEach((job) -> handler.accept(consumer, job));
					if (jobs.isEmpty()) {
						LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // poll pace
					}
				}
			}));
		}
		try {
			return assertTimeoutPreemptively(Duration.ofSeconds(5), call::call,
					"retryAllDead did not return within 5 s while consumers ran");
		}
		finally {
			stop.set(true);
			consumers.shutdown();
			assertThat(consumers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
			for (Future<?> consumer : running) {
				consumer.get(); // a consumer that failed fails the test
			}
		}
	}

	// F21
	@Test
	void foreverUniquenessWindowsAreRefusedWhenTheOptionsAreBuilt() {
		assertThatIllegalArgumentException().isThrownBy(
				() -> JobOptions.builder().uniqueKey("k").uniqueFor(Duration.ofMillis(Long.MAX_VALUE)).build());
		assertThatIllegalArgumentException().isThrownBy(
				() -> JobOptions.builder().uniqueKey("k").uniqueFor(Duration.ofDays(Integer.MAX_VALUE)).build());
		assertThatIllegalArgumentException()
			.isThrownBy(() -> JobOptions.builder().uniqueKey("k").uniqueFor(Duration.ofDays(3651)).build())
			.satisfies((ex) -> assertThat(ex.getMessage()).as("names the limit").containsAnyOf("3650", "PT87600H"));
	}

	// F21
	@Test
	void largestAcceptedUniquenessWindowWorksThroughCompletion() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		JobOptions options = JobOptions.builder().uniqueKey("k").uniqueFor(Duration.ofDays(3650)).build();
		String id = queues.enqueue("u21", "x", options).id();
		ReservedJob job = queues.reserve("u21", 1, LEASE).get(0);

		assertThat(queues.complete("u21", job.ref())).isEqualTo(AckResult.OK);

		assertThat(admin.job("u21", id)).as("not stranded: completed and gone").isEmpty();
		assertThat(admin.counts("u21").pending()).isZero();
		assertThat(this.redis.opsForHash().get(queues.keys("u21").key("unique"), "k")).isEqualTo(id);
		Double lapses = this.redis.opsForZSet().score(queues.keys("u21").key("unique:until"), "k");
		assertThat(lapses).as("the key lapses about 3650 days from now").isNotNull();
		assertThat(lapses.longValue() - System.currentTimeMillis())
			.isBetween(Duration.ofDays(3649).toMillis(), Duration.ofDays(3650).toMillis());
		assertThat(queues.enqueue("u21", "y", options)).isEqualTo(new EnqueueResult(id, true));
	}

}
