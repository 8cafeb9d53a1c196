package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.RedisClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Ordering (higher priority first, FIFO within a priority) and delayed jobs.
 */
class OrderingIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	@Test
	void higherPriorityRunsFirstAndEqualPrioritiesRunInEnqueueOrder() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue("work", "low-1", JobOptions.builder().priority(-5).build());
		queues.enqueue("work", "mid-1");
		queues.enqueue("work", "top-1", JobOptions.builder().priority(1000).build());
		queues.enqueue("work", "mid-2");
		queues.enqueue("work", "high-1", JobOptions.builder().priority(99).build());
		queues.enqueue("work", "low-2", JobOptions.builder().priority(-5).build());
		queues.enqueue("work", "high-2", JobOptions.builder().priority(99).build());
		queues.enqueue("work", "bottom", JobOptions.builder().priority(-1000).build());

		List<String> order = queues.reserve("work", 100, LEASE, String.class).stream().map(Job::payload).toList();

		assertThat(order).containsExactly("top-1", "high-1", "high-2", "mid-1", "mid-2", "low-1", "low-2", "bottom");
	}

	@Test
	void hundredPriorityLevelsComeOutHighestFirst() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		for (int p = 0; p < 100; p++) {
			queues.enqueue("levels", p, JobOptions.builder().priority(p).build());
		}
		List<Integer> order = queues.reserve("levels", 100, LEASE, Integer.class).stream().map(Job::payload).toList();
		assertThat(order).isSortedAccordingTo((a, b) -> Integer.compare(b, a)).hasSize(100);
	}

	@Test
	void delayedJobIsInvisibleBeforeItIsDueAndReservableAfter() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("later", "x", JobOptions.builder().delay(Duration.ofMillis(500)).build()).id();
		Instant enqueued = Instant.now();

		assertThat(queues.reserve("later", 1, LEASE)).isEmpty();
		assertThat(admin.job("later", id).orElseThrow().state()).isEqualTo(JobState.DELAYED);
		assertThat(admin.counts("later").delayed()).isEqualTo(1);

		List<ReservedJob> jobs = await().atMost(Duration.ofSeconds(30))
			.until(() -> queues.reserve("later", 1, LEASE), (found) -> !found.isEmpty());
		assertThat(jobs.get(0).id()).isEqualTo(id);
		assertThat(Duration.between(enqueued, Instant.now())).isGreaterThanOrEqualTo(Duration.ofMillis(400));
	}

	@Test
	void runAtInThePastIsReadyAtOnceAndReservationReportsTheNextDueTime() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue("at", "past", JobOptions.builder().runAt(Instant.now().minusSeconds(60)).build());
		Instant due = Instant.now().plusSeconds(3600);
		queues.enqueue("at", "future", JobOptions.builder().runAt(due).build());

		Reservation reservation = queues.reserveBatch("at", 10, LEASE, "w");

		assertThat(reservation.jobs()).singleElement().satisfies((job) -> assertThat(job.payloadAsString()).isEqualTo("\"past\""));
		assertThat(reservation.nextDue()).isEqualTo(Instant.ofEpochMilli(due.toEpochMilli()));
	}

	@Test
	void headAgeTellsHowLongTheNextJobHasBeenReady() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		assertThat(admin.counts("age").headAge()).isNull();
		queues.enqueue("age", "x");

		await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("age").headAge().toMillis() >= 1000);
		Instant before = RedisClock.now(this.redis);
		queues.enqueue("age", "urgent", JobOptions.builder().priority(5).build());
		Duration urgentAge = admin.counts("age").headAge();
		// by the Redis clock: the age of the urgent job (the head now), not of the older one
		assertThat(urgentAge).isLessThanOrEqualTo(Duration.between(before, RedisClock.now(this.redis)));

		queues.reserve("age", 2, LEASE);
		assertThat(admin.counts("age").headAge()).isNull();
	}

	@Test
	void pausedQueueHandsOutNothingUntilResumed() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("p", "x");
		admin.pause("p");
		assertThat(queues.reserve("p", 1, LEASE)).isEmpty();
		assertThat(admin.counts("p").paused()).isTrue();
		admin.resume("p");
		assertThat(queues.reserve("p", 1, LEASE)).hasSize(1);
	}

}
