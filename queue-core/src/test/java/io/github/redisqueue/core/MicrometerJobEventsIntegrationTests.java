package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.core.metrics.MicrometerJobEvents;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Outcome counters move as jobs flow: enqueued, duplicate, completed, failed, dead-lettered,
 * reaped; the wait timer counts from the moment a job became ready.
 */
class MicrometerJobEventsIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void countersFollowWhatHappensToJobs() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.setJobEvents(new MicrometerJobEvents(registry));

		queues.enqueueAll("mail", List.of(1, 2, 3), JobOptions.defaults());
		queues.enqueue("mail", 4, JobOptions.builder().uniqueKey("k").build());
		queues.enqueue("mail", 5, JobOptions.builder().uniqueKey("k").build());
		List<ReservedJob> jobs = queues.reserve("mail", 3, Duration.ofMinutes(1));
		queues.complete("mail", jobs.get(0).ref());
		queues.retry("mail", jobs.get(1).ref(), "again", Duration.ZERO);
		queues.deadLetter("mail", jobs.get(2).ref(), "no");
		queues.reserve("mail", 1, Duration.ofMillis(20));
		await().atMost(Duration.ofSeconds(30)).until(() -> admin.reapOnce("mail").reclaimed() == 1);

		assertThat(count(registry, "enqueued")).isEqualTo(4);
		assertThat(count(registry, "duplicate")).isEqualTo(1);
		assertThat(count(registry, "completed")).isEqualTo(1);
		assertThat(count(registry, "failed")).isEqualTo(1);
		assertThat(count(registry, "dead_lettered")).isEqualTo(1);
		assertThat(count(registry, "reaped")).isEqualTo(1);
	}

	@Test
	void waitIsTimedFromEnqueueToReservation() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.setJobEvents(new MicrometerJobEvents(registry));
		String id = queues.enqueue("wait", "now").id();
		Instant enqueuedAt = admin.job("wait", id).orElseThrow().enqueuedAt();

		await().atMost(Duration.ofSeconds(30)).until(() -> serverTime().isAfter(enqueuedAt.plusMillis(300)));
		queues.reserve("wait", 1, Duration.ofMinutes(1));
		Instant reservedBy = serverTime();

		// by the Redis clock: at least the 300 ms waited, at most until just after the reserve
		Timer timer = registry.get("queue.job.wait").tag("queue", "wait").timer();
		assertThat(timer.count()).isEqualTo(1);
		assertThat(timer.max(TimeUnit.MILLISECONDS)).isBetween(300.0,
				(double) Duration.between(enqueuedAt, reservedBy).toMillis());
	}

	@Test
	void waitOfADelayedJobStartsAtItsDueTime() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.setJobEvents(new MicrometerJobEvents(registry));
		String id = queues.enqueue("wait", "later", JobOptions.builder().delay(Duration.ofSeconds(2)).build()).id();
		Instant dueAt = new QueueAdmin(queues).job("wait", id).orElseThrow().dueAt();

		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> !queues.reserve("wait", 1, Duration.ofMinutes(1)).isEmpty());
		Instant reservedBy = serverTime();

		// by the Redis clock, at most from the due time to just after the reserve; counted from the
		// enqueue it would be 2 s more
		Timer timer = registry.get("queue.job.wait").tag("queue", "wait").timer();
		assertThat(timer.count()).isEqualTo(1);
		assertThat(timer.max(TimeUnit.MILLISECONDS))
			.isLessThanOrEqualTo((double) Duration.between(dueAt, reservedBy).toMillis());
	}

	@Test
	void waitOfAReleasedJobStartsWhenItWasGivenBack() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue("wait", "held");
		ReservedJob held = queues.reserve("wait", 1, Duration.ofMinutes(1)).get(0);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> serverTime().isAfter(held.enqueuedAt().plusMillis(2000)));
		Instant beforeRelease = serverTime();
		queues.release("wait", held.ref());

		queues.setJobEvents(new MicrometerJobEvents(registry));
		assertThat(queues.reserve("wait", 1, Duration.ofMinutes(1))).hasSize(1);
		Instant reservedBy = serverTime();
		// by the Redis clock, at most from the release to just after the reserve; counted from the
		// enqueue it would be 2 s more
		Timer timer = registry.get("queue.job.wait").tag("queue", "wait").timer();
		assertThat(timer.max(TimeUnit.MILLISECONDS))
			.isLessThanOrEqualTo((double) Duration.between(beforeRelease, reservedBy).toMillis());
	}

	private Instant serverTime() {
		List<Object> time = this.redis.execute((RedisCallback<List<Object>>) (connection) -> List
			.of(connection.serverCommands().time(TimeUnit.MILLISECONDS)));
		return Instant.ofEpochMilli((Long) time.get(0));
	}

	private static double count(SimpleMeterRegistry registry, String outcome) {
		var counter = registry.find("queue.job.outcomes").tag("queue", "mail").tag("outcome", outcome).counter();
		return (counter != null) ? counter.count() : 0;
	}

}
