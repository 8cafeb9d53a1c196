package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.RedisClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What an attempt is: a handler run that ended with a known outcome (or a known start). A
 * reservation taken back with no outcome (lease expired, silent worker, restarted worker) is
 * counted as "lost" instead: the job runs again at the same attempt, and dies after max attempts
 * such losses. Expiry ("not started by then") never applies to a job that started. The
 * listener's max attempts override the job's own, in both directions.
 */
class AttemptAccountingIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration SHORT = Duration.ofMillis(150);

	private static final Duration LONG = Duration.ofMinutes(10);

	// F12
	@Test
	void jobWhoseWorkerDiesAndRestartsWithTheSameIdIsDeadAfterMaxAttemptsRestarts() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("poison", "crashes the JVM", JobOptions.builder().maxAttempts(3).build()).id();

		int reservations = 0;
		// at most 10 crash/restart cycles; the fixed engine stops the loop after 3
		for (int restart = 1; restart <= 10; restart++) {
			List<ReservedJob> jobs = queues.reserveBatch("poison", 1, LONG, "pod-0#mailer").jobs();
			if (jobs.isEmpty()) {
				break;
			}
			reservations++;
			assertThat(jobs.get(0).id()).isEqualTo(id);
			assertThat(jobs.get(0).attempt()).as("no handler run ended, so this is still attempt 1").isEqualTo(1);
			// the handler halts the JVM; the pod restarts with the same worker id, and its container
			// takes back the leases its identity still holds before it fetches
			int given = queues.releaseWorker("poison", "pod-0#mailer");
			if (reservations < 3) {
				assertThat(given).isEqualTo(1);
			}
		}

		assertThat(reservations).as("reservations of a job that crashes its worker every time").isEqualTo(3);
		JobInfo info = admin.job("poison", id).orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.DEAD);
		assertThat(info.lastError()).as("the reason says it was lost 3 times")
			.containsPattern("lost 3 times|held 3 times without an outcome");
		assertThat(admin.deadLetters("poison", 0, 10)).extracting(DeadJob::id).containsExactly(id);
	}

	// F17
	@Test
	void startedJobGivenBackAtShutdownIsNotExpiredAfterwards() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("f17", "x", JobOptions.builder().expireAfter(Duration.ofMillis(300)).build()).id();
		ReservedJob job = queues.reserve("f17", 1, LONG).get(0);

		// the handler ran past the shutdown timeout: the container gives it back as started
		assertThat(queues.releaseAll("f17", List.of(job.ref()), true)).containsExactly(AckResult.OK);
		RedisClock.awaitPast(this.redis, admin.job("f17", id).orElseThrow().expireAt());

		assertThat(admin.reapOnce("f17").expired()).isZero();
		assertThat(queues.reserve("f17", 1, LONG)).extracting(ReservedJob::id).containsExactly(id);
		assertThat(admin.counts("f17").total("expired")).isZero();
	}

	// F17 / F12: a started job given back without an outcome counts as lost, like a crash
	@Test
	void startedJobGivenBackAtShutdownCountsAsLostAndDiesAfterMaxAttemptsSuchReleases() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("f17", "x", JobOptions.builder().maxAttempts(2).build()).id();

		ReservedJob first = queues.reserve("f17", 1, LONG).get(0);
		assertThat(queues.releaseAll("f17", List.of(first.ref()), true)).containsExactly(AckResult.OK);
		ReservedJob second = queues.reserve("f17", 1, LONG).get(0);
		assertThat(second.id()).isEqualTo(id);
		assertThat(second.attempt()).as("no run ended with an outcome").isEqualTo(1);
		assertThat(queues.releaseAll("f17", List.of(second.ref()), true)).containsExactly(AckResult.OK);

		JobInfo info = admin.job("f17", id).orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.DEAD);
		assertThat(info.lastError()).containsPattern("lost 2 times|held 2 times without an outcome");
		assertThat(queues.reserve("f17", 1, LONG)).isEmpty();
	}

	// F17: the other side, unchanged
	@Test
	void jobGivenBackBeforeItStartedStillExpires() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("f17", "x", JobOptions.builder().expireAfter(Duration.ofMillis(300)).build()).id();
		ReservedJob job = queues.reserve("f17", 1, LONG).get(0);

		// prefetched, never started: given back without counting anything
		assertThat(queues.releaseAll("f17", List.of(job.ref()))).containsExactly(AckResult.OK);
		RedisClock.awaitPast(this.redis, admin.job("f17", id).orElseThrow().expireAt());

		assertThat(queues.reserve("f17", 1, LONG)).isEmpty();
		JobInfo info = admin.job("f17", id).orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.DEAD);
		assertThat(info.lastError()).isEqualTo("expired");
	}

	// crash trial: attempts count handler runs, not reservations
	@Test
	void jobTakenBackByLeaseExpiryRunsAgainAtAttemptOneAndIsDeadAsLostAfterMaxAttemptsTakeBacks() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("lost", "x", JobOptions.builder().maxAttempts(3).build()).id();

		for (int takeBack = 1; takeBack <= 3; takeBack++) {
			assertThat(admin.job("lost", id).orElseThrow().state()).isEqualTo(JobState.READY);
			ReservedJob job = queues.reserve("lost", 1, SHORT).get(0);
			assertThat(job.attempt()).as("reservation %d: no run has ended yet", takeBack).isEqualTo(1);
			// its worker died with the job prefetched; the lease runs out and the reaper takes it back
			await().atMost(Duration.ofSeconds(30)).until(() -> {
				admin.reapOnce("lost");
				return admin.job("lost", id).orElseThrow().state() != JobState.ACTIVE;
			});
		}

		JobInfo info = admin.job("lost", id).orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.DEAD);
		assertThat(info.lastError()).as("the reason says it was lost 3 times")
			.containsPattern("lost 3 times|held 3 times without an outcome");
		assertThat(queues.reserve("lost", 1, LONG)).isEmpty();
	}

	// F04
	@Test
	void listenerMaxAttemptsAboveTheJobsOwnAreUsedForRetries() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("f04", "x", JobOptions.builder().maxAttempts(3).build()).id();

		for (int attempt = 1; attempt <= 5; attempt++) {
			Reservation reservation = queues.reserveBatch("f04", 1, LONG, "w#f04", List.of(), 5);
			assertThat(reservation.jobs()).hasSize(1);
			ReservedJob job = reservation.jobs().get(0);
			assertThat(job.attempt()).isEqualTo(attempt);
			assertThat(job.maxAttempts()).as("the listener's max attempts").isEqualTo(5);
			FailResult result = queues.retry("f04", job.ref(), "boom " + attempt, Duration.ZERO);
			assertThat(result).as("attempt %d", attempt)
				.isEqualTo((attempt < 5) ? FailResult.RETRY_SCHEDULED : FailResult.DEAD_LETTERED);
		}

		JobInfo info = admin.job("f04", id).orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.DEAD);
		assertThat(info.maxAttempts()).isEqualTo(5);
		assertThat(info.lastError()).isEqualTo("boom 5");
	}

	// F04
	@Test
	void listenerMaxAttemptsBelowTheJobsOwnApplyToFailuresAndLeaseExpiry() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String failing = queues.enqueue("f04", "fails", JobOptions.builder().maxAttempts(3).build()).id();
		String crashing = queues.enqueue("f04", "crashes", JobOptions.builder().maxAttempts(3).build()).id();

		ReservedJob first = queues.reserveBatch("f04", 1, LONG, "w#f04", List.of(), 1).jobs().get(0);
		assertThat(first.id()).isEqualTo(failing);
		assertThat(first.maxAttempts()).isEqualTo(1);
		assertThat(queues.retry("f04", first.ref(), "boom", Duration.ZERO)).isEqualTo(FailResult.DEAD_LETTERED);

		ReservedJob second = queues.reserveBatch("f04", 1, SHORT, "w#f04", List.of(), 1).jobs().get(0);
		assertThat(second.id()).isEqualTo(crashing);
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			admin.reapOnce("f04");
			return admin.job("f04", crashing).orElseThrow().state() != JobState.ACTIVE;
		});
		assertThat(admin.job("f04", crashing).orElseThrow().state()).isEqualTo(JobState.DEAD);
		assertThat(admin.counts("f04").dead()).isEqualTo(2);
	}

	// F04: 0 keeps the job's own
	@Test
	void maxAttemptsOverrideOfZeroKeepsTheJobsOwn() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue("f04", "x", JobOptions.builder().maxAttempts(4).build());

		ReservedJob job = queues.reserveBatch("f04", 1, LONG, "w#f04", List.of(), 0).jobs().get(0);

		assertThat(job.maxAttempts()).isEqualTo(4);
	}

	// crash trial: a job a killed worker had only reserved ahead was not running
	@Test
	void jobOnlyReservedAheadByWorkersThatDiedIsSparedUntilThreeTimesItsMaxAttempts() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String running = queues.enqueue("ahead", "runs", JobOptions.builder().maxAttempts(2).build()).id();
		String waiting = queues.enqueue("ahead", "waits", JobOptions.builder().maxAttempts(2).build()).id();

		// one idle thread: the first job starts at once, the second is reserved ahead
		List<ReservedJob> jobs = queues.reserveBatch("ahead", 2, LONG, "pod-0#mailer", List.of(), 0, 1).jobs();
		assertThat(jobs).extracting(ReservedJob::id).containsExactly(running, waiting);
		assertThat(queues.releaseWorker("ahead", "pod-0#mailer")).isEqualTo(2);
		jobs = queues.reserveBatch("ahead", 2, LONG, "pod-0#mailer", List.of(), 0, 1).jobs();
		assertThat(jobs).extracting(ReservedJob::id).containsExactly(running, waiting);
		assertThat(queues.releaseWorker("ahead", "pod-0#mailer")).isEqualTo(2);

		// lost twice while it had started: dead at max attempts 2
		assertThat(admin.job("ahead", running).orElseThrow().state()).isEqualTo(JobState.DEAD);
		// lost twice while it only waited: still ready, at attempt 1, until 3 x 2 such losses
		assertThat(admin.job("ahead", waiting).orElseThrow().state()).isEqualTo(JobState.READY);
		for (int loss = 3; loss <= 6; loss++) {
			jobs = queues.reserveBatch("ahead", 1, LONG, "pod-0#mailer", List.of(), 0, 0).jobs();
			assertThat(jobs).extracting(ReservedJob::id).containsExactly(waiting);
			assertThat(jobs.get(0).attempt()).isEqualTo(1);
			assertThat(queues.releaseWorker("ahead", "pod-0#mailer")).isEqualTo(1);
		}
		JobInfo info = admin.job("ahead", waiting).orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.DEAD);
		assertThat(info.lastError()).contains("held 6 times while reserved ahead");
	}

}
