package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.RedisClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lost sequence counter ({@code seq} deleted, say by eviction or by hand) never lets any enqueue
 * path overwrite a job or hand out again the id of a job whose result is kept (B01, S2): single
 * enqueues, bulk enqueues, batch sub-jobs, schedule ticks and batch completion jobs. Each test
 * builds the same queue first: plain jobs 1-3 ready, job 4 completed (its record deleted, its
 * result kept), job 5 delayed for an hour.
 */
class LostSequenceIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final String QUEUE = "lost-seq";

	/** The ids of the queue built by {@link #jobsBeforeTheLoss}, the completed one last but one. */
	private final List<String> before = new ArrayList<>();

	private String completed;

	private String delayed;

	@BeforeEach
	void forget() {
		this.before.clear();
		this.completed = null;
		this.delayed = null;
	}

	@Test
	void aBulkEnqueueAfterTheLossOverwritesNoJobAndReusesNoId() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		jobsBeforeTheLoss(queues, QUEUE);
		loseTheCounter(queues, QUEUE);

		List<String> ids = queues.enqueueAll(QUEUE, IntStream.range(0, 10).mapToObj((i) -> "n" + i).toList(),
				JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();

		assertFresh(queues, QUEUE, ids);
		assertEverythingRuns(queues, QUEUE, 3 + 10);
	}

	@Test
	void singleEnqueuesAfterTheLossReuseNoIdOfACompletedJobWithAResult() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		jobsBeforeTheLoss(queues, QUEUE);
		loseTheCounter(queues, QUEUE);

		List<String> ids = new ArrayList<>();
		ids.add(queues.enqueue(QUEUE, "plain").id());
		ids.add(queues.enqueue(QUEUE, "urgent", JobOptions.builder().priority(3).build()).id());
		ids.add(queues.enqueue(QUEUE, "unique", JobOptions.builder().uniqueKey("u-1").build()).id());

		assertFresh(queues, QUEUE, ids);
		assertEverythingRuns(queues, QUEUE, 3 + 3);
	}

	@Test
	void batchSubJobsAddedAfterTheLossOverwriteNoJob() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		jobsBeforeTheLoss(queues, QUEUE);
		loseTheCounter(queues, QUEUE);

		Batch batch = queues.batch(QUEUE).open();
		List<String> ids = batch.addAll(List.of("b1", "b2", "b3", "b4", "b5", "b6"));

		assertFresh(queues, QUEUE, ids);
		assertEverythingRuns(queues, QUEUE, 3 + 6);
	}

	@Test
	void batchSubJobsOverwriteNoJobWhenTheQueueHasNoPlainJob() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String done = completeWithResult(queues, QUEUE, queues.enqueue(QUEUE, "c").id());
		String later = queues.enqueue(QUEUE, "d", JobOptions.builder().delay(Duration.ofHours(1)).build()).id();
		loseTheCounter(queues, QUEUE);

		List<String> ids = queues.batch(QUEUE).open().addAll(List.of("b1", "b2", "b3"));

		assertThat(ids).doesNotContain(done, later).doesNotHaveDuplicates();
		assertThat(admin.job(QUEUE, later).orElseThrow().payloadAsString()).isEqualTo("\"d\"");
		assertThat(queues.result(QUEUE, done, String.class)).contains("result of " + done);
	}

	@Test
	void aScheduleTickAfterTheLossReusesNoId() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueSchedules schedules = new QueueSchedules(queues);
		jobsBeforeTheLoss(queues, QUEUE);
		loseTheCounter(queues, QUEUE);

		Instant tick = schedules.peek(QUEUE, "daily").serverTime().minusMillis(100);
		ScheduleFiring firing = schedules.fire(QUEUE, "daily", tick, null, MissedTicks.FIRE_ONCE,
				Duration.ofSeconds(10), "\"tick\"".getBytes(StandardCharsets.UTF_8));

		assertFresh(queues, QUEUE, List.copyOf(firing.jobs().values()));
		assertEverythingRuns(queues, QUEUE, 3 + 1);
	}

	@Test
	void aBatchCompletionJobHandedOffAfterTheLossReusesNoId() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		jobsBeforeTheLoss(queues, QUEUE);
		loseTheCounter(queues, QUEUE);
		Batch batch = queues.batch("lost-seq-work").onComplete(QUEUE, "all done").add("w").submit();
		ReservedJob work = queues.reserve("lost-seq-work", 1, LEASE).get(0);
		queues.complete("lost-seq-work", work.ref());

		queues.forwardBatchCompletions("lost-seq-work");

		assertThat(batch.status().state()).isEqualTo(BatchState.COMPLETED);
		List<ReservedJob> ready = queues.reserve(QUEUE, 10, LEASE);
		assertThat(ready).hasSize(4);
		List<String> handed = ready.stream()
			.filter((job) -> job.payloadAsString().contains("all done"))
			.map(ReservedJob::id)
			.toList();
		assertThat(handed).hasSize(1);
		assertFresh(queues, QUEUE, handed);
	}

	@Test
	void aCounterRecreatedByAPromotionAfterTheLossIsNotTrusted() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		jobsBeforeTheLoss(queues, QUEUE);
		String soon = queues.enqueue(QUEUE, "soon", JobOptions.builder().delay(Duration.ofMillis(100)).build()).id();
		this.before.add(soon);
		loseTheCounter(queues, QUEUE);
		RedisClock.awaitPast(this.redis, admin.job(QUEUE, soon).orElseThrow().dueAt());
		// the promotion takes a number of the sequence for the job's place in ready
		assertThat(admin.reapOnce(QUEUE).promoted()).isEqualTo(1);

		List<String> ids = queues.enqueueAll(QUEUE, IntStream.range(0, 10).mapToObj((i) -> "n" + i).toList(),
				JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();

		assertFresh(queues, QUEUE, ids);
		assertEverythingRuns(queues, QUEUE, 3 + 1 + 10);
	}

	@Test
	void aCounterLostAgainAndAgainStillOverwritesNothing() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		jobsBeforeTheLoss(queues, QUEUE);
		Set<String> ids = new HashSet<>();
		for (int round = 0; round < 5; round++) {
			loseTheCounter(queues, QUEUE);
			List<String> added = queues.enqueueAll(QUEUE, List.of("x" + round, "y" + round), JobOptions.defaults())
				.stream()
				.map(EnqueueResult::id)
				.toList();
			String done = completeWithResult(queues, QUEUE,
					queues.enqueue(QUEUE, "z" + round, JobOptions.builder().priority(9).build()).id());
			assertThat(added).doesNotContain(done);
			assertThat(ids.add(done)).isTrue();
			added.forEach((id) -> assertThat(ids.add(id)).isTrue());
		}

		assertFresh(queues, QUEUE, List.copyOf(ids));
	}

	/** Plain jobs 1-3, job 4 completed with a result and no record, job 5 delayed. */
	@Test
	void aLargeJobStaysAheadOfJobsEnqueuedAfterTheCounterAndItsMarkWereLost() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		// jobs that ran and left nothing: their ids are free
		queues.enqueueAll(QUEUE, List.of("small", "small"), JobOptions.defaults());
		for (ReservedJob done : queues.reserve(QUEUE, 2, LEASE)) {
			assertThat(queues.complete(QUEUE, done.ref())).isEqualTo(AckResult.OK);
		}
		// over 4 KB: a record and a ready entry at a plain job's place, not an element of the list
		String large = queues.enqueue(QUEUE, "L".repeat(5_000)).id();
		loseTheCounter(queues, QUEUE);
		this.redis.opsForHash().delete(queues.keys(QUEUE).key("stats"), "~seq");

		String later = queues.enqueue(QUEUE, "later").id();

		assertThat(queues.reserve(QUEUE, 3, LEASE)).extracting(ReservedJob::id).containsExactly(large, later);
	}

	private void jobsBeforeTheLoss(QueueTemplate queues, String queue) {
		queues.enqueueAll(queue, List.of("p1", "p2", "p3"), JobOptions.defaults())
			.forEach((result) -> this.before.add(result.id()));
		this.completed = completeWithResult(queues, queue,
				queues.enqueue(queue, "c", JobOptions.builder().priority(5).build()).id());
		this.before.add(this.completed);
		this.delayed = queues.enqueue(queue, "d", JobOptions.builder().delay(Duration.ofHours(1)).build()).id();
		this.before.add(this.delayed);
		assertThat(this.before).containsExactly("1", "2", "3", "4", "5");
	}

	private String completeWithResult(QueueTemplate queues, String queue, String id) {
		ReservedJob job = queues.reserve(queue, 1, LEASE).get(0);
		assertThat(job.id()).isEqualTo(id);
		assertThat(queues.storeResult(queue, id, "result of " + id)).isTrue();
		assertThat(queues.complete(queue, job.ref())).isEqualTo(AckResult.OK);
		return id;
	}

	private void loseTheCounter(QueueTemplate queues, String queue) {
		assertThat(this.redis.delete(queues.keys(queue).key("seq"))).isTrue();
	}

	/** New ids are none of the earlier ones, the delayed job and the result are intact. */
	private void assertFresh(QueueTemplate queues, String queue, List<String> ids) {
		QueueAdmin admin = new QueueAdmin(queues);
		assertThat(ids).isNotEmpty().doesNotHaveDuplicates().doesNotContainAnyElementsOf(this.before);
		if (this.delayed != null) {
			assertThat(admin.job(queue, this.delayed).orElseThrow()).satisfies((job) -> {
				assertThat(job.state()).isEqualTo(JobState.DELAYED);
				assertThat(job.payloadAsString()).isEqualTo("\"d\"");
			});
		}
		if (this.completed != null) {
			assertThat(queues.result(queue, this.completed, String.class)).contains("result of " + this.completed);
		}
	}

	/** Every ready job (the plain jobs of before and the new ones) is handed out once. */
	private void assertEverythingRuns(QueueTemplate queues, String queue, int ready) {
		List<ReservedJob> jobs = queues.reserve(queue, ready + 10, LEASE);
		assertThat(jobs).hasSize(ready).extracting(ReservedJob::id).doesNotHaveDuplicates();
		assertThat(new QueueAdmin(queues).counts(queue).delayed()).isEqualTo(1);
	}

}
