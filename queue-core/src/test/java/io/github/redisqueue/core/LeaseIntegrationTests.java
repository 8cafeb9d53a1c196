package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Leases with fencing, and no stranded jobs without the reaper: an expired lease is delivered
 * again by the reaper or by reserve alone, and the old holder's token is refused.
 */
class LeaseIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration SHORT = Duration.ofMillis(150);

	private static final Duration LONG = Duration.ofMinutes(5);

	@Test
	void expiredLeaseIsDeliveredAgainByReapOnce() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("mail", "hello").id();
		ReservedJob first = queues.reserve("mail", 1, SHORT).get(0);
		assertThat(admin.counts("mail").inFlight()).isEqualTo(1);

		await().atMost(Duration.ofSeconds(30)).until(() -> admin.reapOnce("mail").reclaimed() == 1);

		JobInfo info = admin.job("mail", id).orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.READY);
		assertThat(info.lastError()).isEqualTo("lease expired");
		ReservedJob second = queues.reserve("mail", 1, LONG).get(0);
		assertThat(second.id()).isEqualTo(first.id());
		// a lease that ran out is a loss without an outcome, not a failed attempt
		assertThat(second.attempt()).isEqualTo(1);
		assertThat(second.token()).isGreaterThan(first.token());
	}

	@Test
	void expiredLeaseIsDeliveredAgainByReserveWithoutAnyReaper() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("mail", "hello");
		ReservedJob first = queues.reserve("mail", 1, SHORT).get(0);
		assertThat(queues.reserve("mail", 1, LONG)).isEmpty();

		List<ReservedJob> again = await().atMost(Duration.ofSeconds(30))
			.until(() -> queues.reserve("mail", 1, LONG), (jobs) -> !jobs.isEmpty());

		assertThat(again.get(0).id()).isEqualTo(first.id());
		assertThat(admin.counts("mail").total("reaped")).isEqualTo(1);
	}

	@Test
	void staleTokenCannotCompleteExtendFailOrReleaseAJobHandedToAnotherConsumer() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("mail", "hello");
		ReservedJob stale = queues.reserve("mail", 1, SHORT).get(0);
		ReservedJob current = await().atMost(Duration.ofSeconds(30))
			.until(() -> queues.reserve("mail", 1, LONG), (jobs) -> !jobs.isEmpty())
			.get(0);

		assertThat(queues.complete("mail", stale.ref())).isEqualTo(AckResult.STALE_TOKEN);
		assertThat(queues.extend("mail", stale.ref(), LONG).result()).isEqualTo(AckResult.STALE_TOKEN);
		assertThat(queues.retry("mail", stale.ref(), "late", Duration.ZERO)).isEqualTo(FailResult.STALE_TOKEN);
		assertThat(queues.deadLetter("mail", stale.ref(), "late")).isEqualTo(FailResult.STALE_TOKEN);
		assertThat(queues.release("mail", stale.ref())).isEqualTo(AckResult.STALE_TOKEN);

		JobInfo info = admin.job("mail", current.id()).orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.ACTIVE);
		assertThat(queues.complete("mail", current.ref())).isEqualTo(AckResult.OK);
		assertThat(admin.job("mail", current.id())).isEmpty();
		assertThat(queues.complete("mail", current.ref())).isEqualTo(AckResult.NOT_FOUND);
	}

	@Test
	void extendingALeaseKeepsTheJobFromBeingReclaimed() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("mail", "hello");
		ReservedJob job = queues.reserve("mail", 1, Duration.ofMillis(300)).get(0);

		ExtendResult extended = queues.extendAll("mail", List.of(job.ref()), LONG).get(0);

		assertThat(extended.extended()).isTrue();
		assertThat(extended.leaseUntil()).isAfter(Instant.now().plus(Duration.ofMinutes(4)));
		await().pollDelay(Duration.ofMillis(400)).atMost(Duration.ofSeconds(30)).until(() -> true);
		assertThat(admin.reapOnce("mail").reclaimed()).isZero();
		assertThat(queues.complete("mail", job.ref())).isEqualTo(AckResult.OK);
	}

	@Test
	void leaseDeadlineComesFromTheRedisServerClock() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue("mail", "hello");
		long before = serverTimeMillis();
		ReservedJob job = queues.reserve("mail", 1, Duration.ofSeconds(60)).get(0);
		long after = serverTimeMillis();

		long deadline = job.leaseUntil().toEpochMilli();
		assertThat(deadline).isBetween(before + 60_000, after + 60_000);
		assertThat(job.enqueuedAt().toEpochMilli()).isLessThanOrEqualTo(after);
	}

	@Test
	void releaseGivesTheJobBackAtOnceWithoutCountingTheAttempt() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue("mail", "a");
		queues.enqueue("mail", "b");
		ReservedJob first = queues.reserve("mail", 1, LONG).get(0);

		assertThat(queues.release("mail", first.ref())).isEqualTo(AckResult.OK);

		ReservedJob again = queues.reserve("mail", 1, LONG).get(0);
		assertThat(again.id()).isEqualTo(first.id());
		assertThat(again.attempt()).isEqualTo(1);
	}

	@Test
	void restartedWorkerTakesBackTheLeasesItsIdentityHolds() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("mail", List.of("a", "b", "c"), JobOptions.defaults());
		queues.reserveBatch("mail", 2, LONG, "worker-1");
		queues.reserveBatch("mail", 1, LONG, "worker-2");

		assertThat(queues.releaseWorker("mail", "worker-1")).isEqualTo(2);

		QueueCounts counts = admin.counts("mail");
		assertThat(counts.ready()).isEqualTo(2);
		assertThat(counts.inFlight()).isEqualTo(1);
	}

	@Test
	void leaseThatRunsOutOnTheLastAttemptDeadLettersTheJob() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("mail", "x", JobOptions.builder().maxAttempts(1).build()).id();
		queues.reserve("mail", 1, SHORT);

		await().atMost(Duration.ofSeconds(30)).until(() -> admin.reapOnce("mail").reclaimed() == 1);

		assertThat(admin.job("mail", id).orElseThrow().state()).isEqualTo(JobState.DEAD);
		assertThat(admin.deadLetters("mail", 0, 10)).singleElement()
			.satisfies((dead) -> assertThat(dead.error()).contains("lease expired"));
	}

	@Test
	void leaseOutsideTheAllowedRangeIsRefusedWithTheRule() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		assertThatIllegalArgumentException().isThrownBy(() -> queues.reserve("mail", 1, Duration.ofMillis(5)))
			.withMessageContaining("PT0.005S")
			.withMessageContaining("from PT0.01S");
		assertThatIllegalArgumentException().isThrownBy(() -> queues.reserve("mail", 0, LONG))
			.withMessageContaining("Reserve count 0");
	}

	private long serverTimeMillis() {
		Long time = this.redis.execute((org.springframework.data.redis.core.RedisCallback<Long>) (connection) -> connection
			.serverCommands()
			.time());
		return time;
	}

}
