package io.github.redisqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.redisqueue.support.BatchCompletion;
import io.github.redisqueue.support.QueueHeaders;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Batches through the pull API on a real Redis: the cap counted in Redis, round-robin between
 * batches, no head-of-line blocking, completion once and only after the seal, cancellation,
 * results, and the keys freed after the retention.
 */
class BatchIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private final List<QueueTemplate> templates = new ArrayList<>();

	private QueueTemplate template(QueueSettings settings) {
		QueueTemplate template = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(), settings);
		this.templates.add(template);
		return template;
	}

	private QueueTemplate template() {
		return template(QueueSettings.defaults());
	}

	@AfterEach
	void stopTemplates() {
		this.templates.forEach(QueueTemplate::destroy);
	}

	private static List<String> pieces(int count) {
		return IntStream.range(0, count).mapToObj((i) -> "piece-" + i).toList();
	}

	private List<String> payloads(QueueTemplate queues, List<ReservedJob> jobs) {
		return jobs.stream().map((job) -> queues.<String>readPayload(job, String.class)).toList();
	}

	@Test
	void noMoreSubJobsThanTheCapCanBeReservedAndTheNextIsAdmittedWhenOneEnds() {
		QueueTemplate queues = template();
		Batch batch = queues.batch("resize").maxConcurrency(3).addAll(pieces(10)).submit();

		List<ReservedJob> first = queues.reserve("resize", 100, LEASE);
		assertThat(payloads(queues, first)).containsExactly("piece-0", "piece-1", "piece-2");
		assertThat(queues.reserve("resize", 100, LEASE)).isEmpty();

		assertThat(queues.complete("resize", first.get(1).ref())).isEqualTo(AckResult.OK);
		List<ReservedJob> next = queues.reserve("resize", 100, LEASE);
		assertThat(payloads(queues, next)).containsExactly("piece-3");

		BatchStatus status = batch.status();
		assertThat(status.state()).isEqualTo(BatchState.SEALED);
		assertThat(status.total()).isEqualTo(10);
		assertThat(status.active()).isEqualTo(3);
		assertThat(status.waiting()).isEqualTo(6);
		assertThat(status.completed()).isEqualTo(1);
		assertThat(status.maxConcurrency()).isEqualTo(3);
	}

	@Test
	void aRetriedSubJobKeepsItsPlaceWithinTheCap() {
		QueueTemplate queues = template();
		queues.batch("resize").maxConcurrency(1).addAll(pieces(3)).submit();
		ReservedJob job = queues.reserve("resize", 10, LEASE).get(0);

		assertThat(queues.retry("resize", job.ref(), "try again", Duration.ZERO)).isEqualTo(FailResult.RETRY_SCHEDULED);

		List<ReservedJob> again = queues.reserve("resize", 10, LEASE);
		assertThat(again).extracting(ReservedJob::id).containsExactly(job.id());
	}

	@Test
	void batchesOfEqualPriorityTakeTurns() {
		QueueTemplate queues = template();
		queues.batch("turns").maxConcurrency(1).addAll(List.of("a1", "a2", "a3")).submit();
		queues.batch("turns").maxConcurrency(1).addAll(List.of("b1", "b2", "b3")).submit();

		List<String> order = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			ReservedJob job = queues.reserve("turns", 1, LEASE).get(0);
			order.add(queues.readPayload(job, String.class));
			queues.complete("turns", job.ref());
		}

		assertThat(order).containsExactly("a1", "b1", "a2", "b2", "a3", "b3");
	}

	@Test
	void aPlainJobEnqueuedAfterABatchAtItsCapRunsFirst() {
		QueueTemplate queues = template();
		queues.batch("mixed").maxConcurrency(1).addAll(pieces(1000)).submit();
		ReservedJob held = queues.reserve("mixed", 10, LEASE).get(0);
		queues.enqueue("mixed", "plain");

		List<ReservedJob> next = queues.reserve("mixed", 10, LEASE);

		assertThat(payloads(queues, next)).containsExactly("plain");
		assertThat(queues.<String>readPayload(held, String.class)).isEqualTo("piece-0");
	}

	@Test
	void higherPriorityBatchesRunFirst() {
		QueueTemplate queues = template();
		queues.batch("prio").priority(1).maxConcurrency(2).addAll(List.of("low-1", "low-2")).submit();
		queues.batch("prio").priority(50).maxConcurrency(2).addAll(List.of("high-1", "high-2")).submit();

		assertThat(payloads(queues, queues.reserve("prio", 2, LEASE))).containsExactly("high-1", "high-2");
	}

	@Test
	void anOpenBatchDoesNotFinishBeforeItIsSealedThenEnqueuesOneCompletionJob() throws Exception {
		QueueTemplate queues = template();
		QueueAdmin admin = new QueueAdmin(queues);
		Batch batch = queues.batch("resize").maxConcurrency(5).onComplete("resize-done", "request-7").open();
		batch.addAll(pieces(2));
		CompletableFuture<BatchStatus> completion = batch.completion();
		for (ReservedJob job : queues.reserve("resize", 10, LEASE)) {
			queues.complete("resize", job.ref());
		}
		assertThat(batch.status().state()).isEqualTo(BatchState.OPEN);
		assertThat(admin.counts("resize-done").ready()).isZero();
		assertThat(completion).isNotDone();

		batch.addAll(pieces(1));
		queues.complete("resize", queues.reserve("resize", 10, LEASE).get(0).ref());
		BatchStatus sealed = batch.seal();

		assertThat(sealed.state()).isEqualTo(BatchState.COMPLETED);
		assertThat(sealed.completed()).isEqualTo(3);
		assertThat(completion.get(10, TimeUnit.SECONDS).state()).isEqualTo(BatchState.COMPLETED);
		List<Job<String>> done = queues.reserve("resize-done", 10, LEASE, String.class);
		assertThat(done).hasSize(1);
		assertThat(done.get(0).payload()).isEqualTo("request-7");
		BatchCompletion info = BatchCompletion.from(done.get(0).meta().headers()::get);
		assertThat(info).isEqualTo(new BatchCompletion("resize", batch.id(), false, 3, 3, 0, 0));
		assertThat(done.get(0).meta().headers()).containsEntry(QueueHeaders.BATCH_ID, batch.id());
	}

	@Test
	void aBatchWhoseLastSubJobIsDeadLetteredCompletesOnceWithItsDeadCount() {
		QueueTemplate queues = template();
		Batch batch = queues.batch("resize").maxAttempts(1).onComplete("resize-done").addAll(pieces(2)).submit();
		List<ReservedJob> jobs = queues.reserve("resize", 10, LEASE);
		queues.complete("resize", jobs.get(0).ref());
		assertThat(batch.status().state()).isEqualTo(BatchState.SEALED);

		assertThat(queues.retry("resize", jobs.get(1).ref(), "broken", Duration.ZERO)).isEqualTo(FailResult.DEAD_LETTERED);

		BatchStatus status = batch.status();
		assertThat(status.state()).isEqualTo(BatchState.COMPLETED);
		assertThat(status.completed()).isEqualTo(1);
		assertThat(status.dead()).isEqualTo(1);
		List<Job<BatchCompletion>> done = queues.reserve("resize-done", 10, LEASE, BatchCompletion.class);
		assertThat(done).hasSize(1);
		assertThat(done.get(0).payload()).isEqualTo(new BatchCompletion("resize", batch.id(), false, 2, 1, 1, 0));
	}

	@Test
	void theLastTwoSubJobsEndingAtTheSameInstantEnqueueOneCompletionJob() throws Exception {
		QueueTemplate queues = template();
		QueueTemplate other = template();
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < 20; round++) {
				Batch batch = queues.batch("race").onComplete("race-done").addAll(pieces(2)).submit();
				List<ReservedJob> jobs = queues.reserve("race", 10, LEASE);
				assertThat(jobs).hasSize(2);
				CountDownLatch go = new CountDownLatch(1);
				Future<AckResult> a = pool.submit(() -> {
					go.await();
					return queues.complete("race", jobs.get(0).ref());
				});
				Future<AckResult> b = pool.submit(() -> {
					go.await();
					return other.complete("race", jobs.get(1).ref());
				});
				go.countDown();
				assertThat(a.get(10, TimeUnit.SECONDS)).isEqualTo(AckResult.OK);
				assertThat(b.get(10, TimeUnit.SECONDS)).isEqualTo(AckResult.OK);
				assertThat(batch.status().state()).isEqualTo(BatchState.COMPLETED);
			}
		}
		finally {
			pool.shutdownNow();
		}
		// each completion is handed off by whichever template saw it first; a second hand-off of the
		// same batch would be refused by its idempotency key
		queues.forwardBatchCompletions("race");
		other.forwardBatchCompletions("race");
		List<Job<BatchCompletion>> done = queues.reserve("race-done", 100, LEASE, BatchCompletion.class);
		assertThat(done).hasSize(20);
		assertThat(done.stream().map((job) -> job.payload().batchId()).distinct()).hasSize(20);
	}

	@Test
	void aHandOffRepeatedAfterAFailureBetweenItsStepsMakesNoSecondCompletionJob() {
		QueueTemplate queues = template();
		Batch batch = queues.batch("repeat").onComplete("repeat-done").addAll(pieces(1)).submit();
		// the worker's own completion call hands it off; put the entry back as if the client died
		// between enqueueing the completion job and removing the entry
		queues.complete("repeat", queues.reserve("repeat", 1, LEASE).get(0).ref());
		this.redis.opsForZSet().add("{rq:repeat}:batches:done", batch.id(), 1);

		assertThat(queues.forwardBatchCompletions("repeat")).isEqualTo(1);

		assertThat(new QueueAdmin(queues).counts("repeat-done").ready()).isEqualTo(1);
		assertThat(this.redis.opsForZSet().size("{rq:repeat}:batches:done")).isZero();
	}

	@Test
	void cancellingRemovesWaitingSubJobsAndFinishesWhenTheRunningOnesEnd() throws Exception {
		QueueTemplate queues = template();
		Batch batch = queues.batch("cancel").maxConcurrency(2).onComplete("cancel-done").addAll(pieces(100)).submit();
		ReservedJob running = queues.reserve("cancel", 1, LEASE).get(0);

		BatchStatus cancelling = batch.cancel();

		assertThat(cancelling.state()).isEqualTo(BatchState.CANCELLING);
		assertThat(cancelling.waiting()).isZero();
		assertThat(cancelling.active()).isEqualTo(1);
		assertThat(cancelling.cancelled()).isEqualTo(99);
		assertThat(queues.reserve("cancel", 10, LEASE)).isEmpty();
		assertThat(queues.complete("cancel", running.ref())).isEqualTo(AckResult.OK);
		BatchStatus cancelled = batch.status();
		assertThat(cancelled.state()).isEqualTo(BatchState.CANCELLED);
		assertThat(cancelled.completed()).isEqualTo(1);
		assertThat(batch.completion().get(10, TimeUnit.SECONDS).state()).isEqualTo(BatchState.CANCELLED);
		List<Job<BatchCompletion>> done = queues.reserve("cancel-done", 10, LEASE, BatchCompletion.class);
		assertThat(done).extracting(Job::payload)
			.containsExactly(new BatchCompletion("cancel", batch.id(), true, 100, 1, 0, 99));
		assertThat(new JobRecords(this.redis, queues, "cancel").count()).isZero();
	}

	@Test
	void aRunningSubJobOfACancelledBatchThatFailsIsNotRetried() {
		QueueTemplate queues = template();
		Batch batch = queues.batch("cancel").maxConcurrency(1).addAll(pieces(5)).submit();
		ReservedJob running = queues.reserve("cancel", 1, LEASE).get(0);
		batch.cancel();

		queues.retry("cancel", running.ref(), "failed", Duration.ZERO);

		assertThat(batch.status().state()).isEqualTo(BatchState.CANCELLED);
		assertThat(batch.status().cancelled()).isEqualTo(5);
		assertThat(queues.reserve("cancel", 10, LEASE)).isEmpty();
	}

	@Test
	void resultsAreReadByJobIdAndByBatch() {
		QueueTemplate queues = template();
		Batch batch = queues.batch("results").addAll(pieces(3)).submit();
		List<ReservedJob> jobs = queues.reserve("results", 10, LEASE);
		assertThat(queues.storeResult("results", jobs.get(0).id(), "out-0")).isTrue();
		assertThat(queues.storeResult("results", jobs.get(2).id(), "out-2")).isTrue();
		jobs.forEach((job) -> queues.complete("results", job.ref()));

		assertThat(queues.result("results", jobs.get(0).id(), String.class)).contains("out-0");
		assertThat(queues.result("results", jobs.get(1).id(), String.class)).isEmpty();
		assertThat(batch.results(String.class, 0, 10)).containsExactly(new JobResult<>(jobs.get(0).id(), "out-0"),
				new JobResult<>(jobs.get(1).id(), null), new JobResult<>(jobs.get(2).id(), "out-2"));
		assertThat(batch.results(String.class, 2, 10)).extracting(JobResult::result).containsExactly("out-2");
	}

	@Test
	void aResultLargerThanTheLimitIsRefusedAndAZeroRetentionStoresNone() {
		QueueTemplate small = template(QueueSettings.builder().maxResultBytes(10).build());
		assertThatExceptionOfType(io.github.redisqueue.QueueException.class)
			.isThrownBy(() -> small.storeResult("results", "1", "a result far longer than ten bytes"))
			.withMessageContaining("more than the limit of 10");
		QueueTemplate none = template(QueueSettings.builder().resultRetention(Duration.ZERO).build());
		assertThat(none.storeResult("results", "1", "kept?")).isFalse();
		assertThat(none.result("results", "1", String.class)).isEmpty();
	}

	@Test
	void refusesWhatABatchCannotDo() {
		QueueTemplate queues = template();
		Batch batch = queues.batch("refuse").id("order-42").addAll(pieces(1)).submit();

		assertThatExceptionOfType(QueueBatchException.class).isThrownBy(() -> batch.add("late"))
			.withMessageContaining("is sealed");
		assertThatExceptionOfType(QueueBatchException.class).isThrownBy(batch::seal)
			.withMessageContaining("only an open batch can be sealed");
		assertThatExceptionOfType(QueueBatchException.class)
			.isThrownBy(() -> queues.batch("refuse").id("order-42").submit())
			.withMessageContaining("has a batch 'order-42' already");
		assertThatExceptionOfType(QueueBatchException.class).isThrownBy(() -> queues.batch("refuse", "nope").status())
			.withMessageContaining("has no batch 'nope'");
		assertThatExceptionOfType(QueueBatchException.class).isThrownBy(() -> queues.cancelBatch("refuse", "nope"));
		assertThat(queues.batchCompletion("refuse", "nope")).failsWithin(Duration.ofSeconds(10));
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> queues.batch("refuse").maxConcurrency(0));
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> queues.batch("refuse").id("a b"));
		assertThat(new JobRecords(this.redis, queues, "refuse").count()).isEqualTo(1);
	}

	@Test
	void aHundredThousandSubJobsFedInChunksCompleteAndTheBatchKeysAreFreedAfterTheRetention() throws Exception {
		QueueTemplate queues = template(QueueSettings.builder().batchRetention(Duration.ofSeconds(1)).build());
		Batch batch = queues.batch("big").maxConcurrency(1000).onComplete("big-done").open();
		for (int chunk = 0; chunk < 10; chunk++) {
			int base = chunk * 10_000;
			batch.addAll(IntStream.range(base, base + 10_000).boxed().toList());
		}
		assertThat(batch.status().total()).isEqualTo(100_000);
		batch.seal();

		List<JobRef> acks = new ArrayList<>();
		long handled = 0;
		while (handled < 100_000) {
			Reservation reservation = queues.reserveBatch("big", 1000, LEASE, "drain", acks);
			acks = reservation.jobs().stream().map(ReservedJob::ref).toList();
			handled += acks.size();
			assertThat(acks).isNotEmpty();
		}
		queues.completeAll("big", acks);

		BatchStatus done = batch.completion().get(30, TimeUnit.SECONDS);
		assertThat(done.completed()).isEqualTo(100_000);
		assertThat(done.state()).isEqualTo(BatchState.COMPLETED);
		assertThat(new QueueAdmin(queues).counts("big-done").ready()).isEqualTo(1);
		assertThat(this.redis.opsForZSet().size("{rq:big}:batches:jobs")).isEqualTo(100_000);
		// the batch's record and its completion payload's own field
		assertThat(this.redis.opsForHash().size("{rq:big}:gates")).isEqualTo(2);
		await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
			new QueueAdmin(queues).reapOnce();
			assertThat(this.redis.hasKey("{rq:big}:batches:jobs")).isFalse();
			assertThat(this.redis.hasKey("{rq:big}:gates")).isFalse();
		});
		assertThat(new JobRecords(this.redis, queues, "big").count()).isZero();
		assertThat(this.redis.hasKey("{rq:big}:batches:done")).isFalse();
	}

	@Test
	void aWaitingSubJobWhoseHashWasDamagedOrDeletedEndsDeadSoTheBatchStillFinishes() {
		QueueTemplate queues = template();
		Batch batch = queues.batch("damaged").maxConcurrency(1).addAll(pieces(4)).submit();
		JobRecords records = new JobRecords(this.redis, queues, "damaged");
		List<String> waiting = batch.results(String.class, 0, 4).stream().map(JobResult::jobId)
			.filter((id) -> "waiting".equals(records.fields(id).get("state")))
			.toList();
		assertThat(waiting).hasSize(3);
		records.put(waiting.get(0), "priority", "high");
		records.delete(waiting.get(1));

		queues.complete("damaged", queues.reserve("damaged", 10, LEASE).get(0).ref());
		queues.complete("damaged", queues.reserve("damaged", 10, LEASE).get(0).ref());

		BatchStatus status = batch.status();
		assertThat(status.state()).isEqualTo(BatchState.COMPLETED);
		assertThat(status.completed()).isEqualTo(2);
		assertThat(status.dead()).isEqualTo(2);
		assertThat(new QueueAdmin(queues).job("damaged", waiting.get(0)).orElseThrow().lastError())
			.isEqualTo("corrupt job: field priority is 'high'");
	}

	@Test
	void aGeneratedIdPassesOverAnIdACallerGaveEarlier() {
		QueueTemplate queues = template();
		Batch first = queues.batch("ids").submit();
		queues.batch("ids").id(String.valueOf(Long.parseLong(first.id()) + 1)).submit();

		Batch next = queues.batch("ids").submit();

		assertThat(Long.parseLong(next.id())).isGreaterThan(Long.parseLong(first.id()) + 1);
	}

	@Test
	void countsShowTheSubJobsOfOpenBatchesAndTheJobsOfGroupsWaitingAndAdmitted() {
		QueueTemplate queues = template();
		QueueAdmin admin = new QueueAdmin(queues);
		queues.batch("counted").maxConcurrency(2).addAll(pieces(5)).submit();
		queues.batch("counted").maxConcurrency(1).addAll(pieces(3)).open();
		for (int i = 0; i < 3; i++) {
			queues.enqueue("counted", "grouped-" + i, JobOptions.builder().group("customer-1").build());
		}

		QueueCounts counts = admin.counts("counted");

		assertThat(counts.total("batchWaiting")).isEqualTo(5);
		assertThat(counts.total("batchActive")).isEqualTo(3);
		assertThat(counts.total("groupWaiting")).isEqualTo(2);
		assertThat(counts.total("groupActive")).isEqualTo(1);
		assertThat(counts.ready()).isEqualTo(4);
		List<ReservedJob> jobs = queues.reserve("counted", 10, LEASE);
		jobs.forEach((job) -> queues.complete("counted", job.ref()));
		QueueCounts after = admin.counts("counted");
		assertThat(after.total("batchWaiting")).isEqualTo(2);
		assertThat(after.total("batchActive")).isEqualTo(3);
		assertThat(after.total("groupWaiting")).isEqualTo(1);
		assertThat(after.total("groupActive")).isEqualTo(1);
	}

	// S1: a cancel walks the batch's index of sub-jobs and ends at its end, even when entries are missing
	@Test
	void cancellingABatchWhoseIndexLostEntriesEndsAtTheEndOfTheIndex() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		Batch batch = queues.batch("s1").maxConcurrency(1).addAll(IntStream.range(0, 30).boxed().toList())
			.submit();
		String index = queues.keys("s1").key("batches:jobs");
		Set<String> members = this.redis.opsForZSet().range(index, 20, -1);
		this.redis.opsForZSet().remove(index, members.toArray());

		BatchStatus status = assertTimeoutPreemptively(Duration.ofSeconds(60),
				() -> queues.cancelBatch("s1", batch.id()), "the cancel did not end");

		// the admitted sub-job and the 19 waiting ones the index still names
		assertThat(status.cancelled()).isEqualTo(20);
		assertThat(status.state()).isEqualTo(BatchState.CANCELLING);
	}

}
