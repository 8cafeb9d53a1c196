package io.github.redisqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A job's end is counted once by its batch or group, and no later call ends it otherwise: the
 * late completion of a sub-job that a take-back dead-lettered is refused, so the batch's counts
 * stay those of its sub-jobs' final states; a dead job of a group retried by an operator waits
 * for its group's turn.
 */
class GateEndIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LONG = Duration.ofMinutes(10);

	// B04
	@Test
	void aSubJobDeadLetteredByATakeBackStaysDeadWhenItsHolderCompletesItLate() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		Batch batch = queues.batch("b04").maxAttempts(1).add("only").submit();
		ReservedJob job = queues.reserve("b04", 1, Duration.ofMillis(100)).get(0);

		// the lease runs out; a reaper pass takes the job back, lost once = its max attempts: dead
		await().atMost(Duration.ofSeconds(5)).until(() -> admin.reapOnce("b04").reclaimed() == 1);
		assertThat(admin.job("b04", job.id()).orElseThrow().state()).isEqualTo(JobState.DEAD);
		assertThat(batch.status().state()).isEqualTo(BatchState.COMPLETED);

		assertThat(queues.complete("b04", job.ref())).isEqualTo(AckResult.STALE_TOKEN);

		BatchStatus status = batch.status();
		assertThat(status.completed()).isZero();
		assertThat(status.dead()).isEqualTo(1);
		assertThat(admin.job("b04", job.id()).orElseThrow().state()).isEqualTo(JobState.DEAD);
		assertThat(admin.deadLetters("b04", 0, 10)).extracting(DeadJob::id).containsExactly(job.id());
		assertThat(admin.counts("b04").total("completed")).isZero();
		assertThat(admin.counts("b04").total("dead")).isEqualTo(1);
	}

	// a retried sub-job is outside its batch: a take-back that dead-letters it is counted by no batch,
	// so its holder's late completion is accepted as for any job
	@Test
	void aRetriedSubJobDeadLetteredByATakeBackIsCompletedByItsHoldersLateCompletion() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		Batch batch = queues.batch("b04r").maxAttempts(1).add("only").submit();
		ReservedJob first = queues.reserve("b04r", 1, LONG).get(0);
		queues.deadLetter("b04r", first.ref(), "boom");
		assertThat(batch.status().dead()).isEqualTo(1);
		assertThat(admin.retryDead("b04r", first.id())).isTrue();

		ReservedJob again = queues.reserve("b04r", 1, Duration.ofMillis(100)).get(0);
		assertThat(again.id()).isEqualTo(first.id());
		await().atMost(Duration.ofSeconds(30)).until(() -> admin.reapOnce("b04r").reclaimed() == 1);
		assertThat(admin.job("b04r", again.id()).orElseThrow().state()).isEqualTo(JobState.DEAD);

		assertThat(queues.complete("b04r", again.ref())).isEqualTo(AckResult.OK);
		assertThat(admin.job("b04r", again.id())).isEmpty();
		assertThat(batch.status().dead()).as("the batch keeps the end it counted").isEqualTo(1);
		assertThat(batch.status().completed()).isZero();
	}

	// B04 for a group: the group counted the end at the death; the late completion changes nothing
	@Test
	void aGroupedJobDeadLetteredByATakeBackStaysDeadWhenItsHolderCompletesItLate() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		JobOptions grouped = JobOptions.builder().group("customer-7").maxAttempts(1).build();
		String first = queues.enqueue("g04", "a", grouped).id();
		String second = queues.enqueue("g04", "b", grouped).id();
		ReservedJob job = queues.reserve("g04", 1, Duration.ofMillis(100)).get(0);
		assertThat(job.id()).isEqualTo(first);
		await().atMost(Duration.ofSeconds(5)).until(() -> admin.reapOnce("g04").reclaimed() == 1);
		ReservedJob next = queues.reserve("g04", 1, LONG).get(0);
		assertThat(next.id()).isEqualTo(second);

		assertThat(queues.complete("g04", job.ref())).isEqualTo(AckResult.STALE_TOKEN);

		assertThat(admin.job("g04", first).orElseThrow().state()).isEqualTo(JobState.DEAD);
		assertThat(admin.counts("g04").total("groupActive")).isEqualTo(1);
		assertThat(queues.complete("g04", next.ref())).isEqualTo(AckResult.OK);
		assertThat(admin.counts("g04").total("groupActive")).isZero();
		assertThat(this.redis.opsForHash().size(queues.keys("g04").key("gates"))).isZero();
	}

	// B09
	@Test
	void aDeadJobOfAGroupRetriedByAnOperatorWaitsForItsGroupsTurn() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		JobOptions grouped = JobOptions.builder().group("customer-42").maxAttempts(1).build();
		List<String> ids = IntStream.rangeClosed(1, 3).mapToObj((i) -> queues.enqueue("b09", i, grouped).id()).toList();
		ReservedJob one = queues.reserve("b09", 10, LONG).get(0);
		assertThat(one.id()).isEqualTo(ids.get(0));
		assertThat(queues.deadLetter("b09", one.ref(), "failed")).isEqualTo(FailResult.DEAD_LETTERED);
		ReservedJob two = queues.reserve("b09", 10, LONG).get(0);
		assertThat(two.id()).isEqualTo(ids.get(1));

		assertThat(admin.retryDead("b09", one.id())).isTrue();

		assertThat(admin.job("b09", one.id()).orElseThrow().state()).isEqualTo(JobState.WAITING);
		assertThat(queues.reserve("b09", 10, LONG)).as("the group runs one job at a time").isEmpty();
		// the old lease's token no longer acknowledges the retried job
		assertThat(queues.complete("b09", one.ref())).isEqualTo(AckResult.STALE_TOKEN);
		assertThat(queues.complete("b09", two.ref())).isEqualTo(AckResult.OK);
		// waiting in id order: the retried job comes before job 3
		ReservedJob again = queues.reserve("b09", 10, LONG).get(0);
		assertThat(again.id()).isEqualTo(one.id());
		assertThat(again.attempt()).isEqualTo(1);
		assertThat(queues.reserve("b09", 10, LONG)).isEmpty();
		assertThat(queues.complete("b09", again.ref())).isEqualTo(AckResult.OK);
		ReservedJob three = queues.reserve("b09", 10, LONG).get(0);
		assertThat(three.id()).isEqualTo(ids.get(2));
		assertThat(queues.complete("b09", three.ref())).isEqualTo(AckResult.OK);
		assertThat(admin.counts("b09").total("groupActive")).isZero();
		assertThat(admin.counts("b09").total("groupWaiting")).isZero();
		assertThat(this.redis.opsForHash().size(queues.keys("b09").key("gates"))).isZero();
	}

	// B09: a group whose record went with its last job is created again, with the queue's cap
	@Test
	void aDeadJobOfAGroupWithNothingPendingIsRetriedAtOnceAndHoldsTheGroupAgain() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		JobOptions grouped = JobOptions.builder().group("customer-43").maxAttempts(1).build();
		String lone = queues.enqueue("b09", "x", grouped).id();
		queues.deadLetter("b09", queues.reserve("b09", 1, LONG).get(0).ref(), "failed");
		assertThat(this.redis.opsForHash().size(queues.keys("b09").key("gates"))).isZero();

		assertThat(admin.retryAllDead("b09")).isEqualTo(1);
		String later = queues.enqueue("b09", "y", grouped).id();

		ReservedJob job = queues.reserve("b09", 10, LONG).get(0);
		assertThat(job.id()).isEqualTo(lone);
		assertThat(queues.reserve("b09", 10, LONG)).isEmpty();
		assertThat(admin.job("b09", later).orElseThrow().state()).isEqualTo(JobState.WAITING);
		assertThat(queues.complete("b09", job.ref())).isEqualTo(AckResult.OK);
		assertThat(queues.reserve("b09", 10, LONG)).extracting(ReservedJob::id).containsExactly(later);
	}

	/**
	 * B04 under stress: two clients (two connection factories) drain three batches whose handlers
	 * complete, fail (retry or dead-letter) or overrun their short leases and complete late, while
	 * a reaper takes expired leases back, an operator deletes waiting sub-jobs and one batch is
	 * cancelled. Every batch's counts equal its sub-jobs' final states and the dead set.
	 */
	@Test
	void batchCountsMatchTheFinalStatesOfTheirSubJobsUnderTwoClientsWithOverrunningLeases() throws Exception {
		LettuceConnectionFactory second = TestRedis.connectionFactory(TestRedis.shared());
		QueueSettings settings = QueueSettings.builder().completedRetention(Duration.ofHours(1)).build();
		try {
			List<QueueTemplate> clients = List.of(
					new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(), settings),
					new QueueTemplate(second, new JacksonJobSerializer(), settings));
			QueueAdmin admin = new QueueAdmin(clients.get(0));
			QueueAdmin otherAdmin = new QueueAdmin(clients.get(1));
			String queue = "stress";
			List<Batch> batches = new ArrayList<>();
			List<List<String>> subJobs = new ArrayList<>();
			for (int maxAttempts : List.of(1, 2, 3)) {
				Batch batch = clients.get(maxAttempts % 2).batch(queue).maxConcurrency(6).maxAttempts(maxAttempts).open();
				subJobs.add(batch.addAll(IntStream.range(0, 80).boxed().toList()));
				batch.seal();
				batches.add(batch);
			}
			AtomicBoolean stop = new AtomicBoolean();
			ExecutorService threads = Executors.newFixedThreadPool(6);
			List<Future<?>> running = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				QueueTemplate client = clients.get(t % 2);
				running.add(threads.submit(() -> consume(client, queue, stop)));
			}
			running.add(threads.submit(() -> {
				while (!stop.get()) {
					admin.reapOnce(queue);
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
				}
			}));
			running.add(threads.submit(() -> {
				Random random = new Random();
				while (!stop.get()) {
					List<String> ids = subJobs.get(random.nextInt(subJobs.size()));
					String id = ids.get(random.nextInt(ids.size()));
					// only jobs that never held a lease, so that no late completion races the delete
					if (otherAdmin.job(queue, id).map((job) -> job.state() == JobState.WAITING).orElse(false)) {
						try {
							otherAdmin.deleteJob(queue, id);
						}
						catch (IllegalStateException ex) {
							// admitted and reserved meanwhile: active jobs are not deleted
						}
					}
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(15));
				}
			}));
			try {
				await().atMost(Duration.ofSeconds(60)).until(() -> batches.get(2).status().ended() >= 20);
				otherAdmin.cancelBatch(queue, batches.get(2).id());
				await().atMost(Duration.ofSeconds(90)).until(() -> batches.stream()
					.map(Batch::status)
					.allMatch((s) -> s.state() == BatchState.COMPLETED || s.state() == BatchState.CANCELLED));
			}
			finally {
				stop.set(true);
				threads.shutdown();
				assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
			}
			for (Future<?> thread : running) {
				thread.get();
			}

			Set<String> deadSet = new HashSet<>(this.redis.opsForZSet().range(clients.get(0).keys(queue).key("dead"), 0, -1));
			for (int b = 0; b < batches.size(); b++) {
				BatchStatus status = batches.get(b).status();
				long completed = 0;
				long dead = 0;
				long gone = 0;
				long deadInSet = 0;
				for (String id : subJobs.get(b)) {
					JobState state = admin.job(queue, id).map(JobInfo::state).orElse(null);
					if (state == null) {
						gone++;
					}
					else if (state == JobState.COMPLETED) {
						completed++;
					}
					else if (state == JobState.DEAD) {
						dead++;
					}
					else {
						throw new AssertionError("sub-job " + id + " of a finished batch is " + state);
					}
					if (deadSet.contains(id)) {
						deadInSet++;
					}
				}
				assertThat(status.ended()).as("batch %d", b).isEqualTo(status.total());
				assertThat(Map.of("completed", status.completed(), "dead", status.dead(), "cancelled", status.cancelled()))
					.as("batch %d's counts against its sub-jobs' final states", b)
					.isEqualTo(Map.of("completed", completed, "dead", dead, "cancelled", gone));
				assertThat(deadInSet).as("batch %d's dead sub-jobs in the dead set", b).isEqualTo(dead);
			}
		}
		finally {
			second.destroy();
		}
	}

	/** Handles jobs until stopped: most complete at once, some fail, some overrun the lease and complete late. */
	private static void consume(QueueTemplate client, String queue, AtomicBoolean stop) {
		while (!stop.get()) {
			List<ReservedJob> jobs = client.reserve(queue, 2, Duration.ofMillis(80));
			for (ReservedJob job : jobs) {
				int roll = ThreadLocalRandom.current().nextInt(100);
				if (roll < 55) {
					client.complete(queue, job.ref());
				}
				else if (roll < 75) {
					// overruns its lease: a reaper pass takes it back meanwhile, then it completes late
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(120));
					client.complete(queue, job.ref());
				}
				else if (roll < 90) {
					client.retry(queue, job.ref(), "try again", Duration.ofMillis(roll % 2 * 20));
				}
				else {
					client.deadLetter(queue, job.ref(), "gave up");
				}
			}
			if (jobs.isEmpty()) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // poll pace
			}
		}
	}

}
