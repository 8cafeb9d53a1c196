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
 * How the scripts treat a gap in the queue's calls: after a restart or a failover (another run id
 * of the server) a heartbeat that ran out in it is held like a lease, a lease that ran out longer
 * than the cap before its end is due at once, and a gap with nothing in flight shifts nothing; a
 * gap on the same server (a queue nobody called) shifts nothing. The gap is made by setting the
 * queue's "last seen" time back, and a restart by setting the run id it recorded to another, as
 * a restart from an older file would. {@code RedisOutageLeaseIntegrationTests} has the real
 * restart.
 */
class OutageWindowIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LONG_LEASE = Duration.ofMinutes(10);

	@Test
	void aHeartbeatThatRanOutWhileRedisWasAwayIsHeldUntilTheWorkerCanBeatAgain() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("hb", List.of(1, 2), JobOptions.defaults());
		admin.heartbeat(new WorkerInfo("back", "h", List.of("hb"), 1, null, null), Duration.ofMinutes(1));
		admin.heartbeat(new WorkerInfo("gone", "h", List.of("hb"), 1, null, null), Duration.ofMinutes(1));
		ReservedJob ofBack = queues.reserveBatch("hb", 1, LONG_LEASE, "back#l").jobs().get(0);
		ReservedJob ofGone = queues.reserveBatch("hb", 1, LONG_LEASE, "gone#l").jobs().get(0);

		// the last 3 s nobody reached Redis, and both heartbeats ran out 1 s ago
		long now = RedisClock.now(this.redis).toEpochMilli();
		this.redis.opsForHash().put("{rq:hb}:stats", "~seen", Long.toString(now - 3000));
		this.redis.opsForHash().put("{rq:hb}:stats", "~run", "another-server");
		this.redis.opsForZSet().add("{rq:hb}:live", "back", now - 1000);
		this.redis.opsForZSet().add("{rq:hb}:live", "gone", now - 1000);

		ReapResult first = admin.reapOnce("hb");
		assertThat(first.abandoned()).as("jobs taken from silent workers right after the outage").isZero();
		assertThat(state("hb", ofBack)).isEqualTo(JobState.ACTIVE);
		assertThat(state("hb", ofGone)).isEqualTo(JobState.ACTIVE);
		// one worker beats again; the other stays silent and loses its job once the outage's length
		// has passed since Redis came back
		admin.heartbeat(new WorkerInfo("back", "h", List.of("hb"), 1, null, null), Duration.ofMinutes(1));
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> admin.reapOnce("hb").abandoned() == 1);
		Instant takenAt = RedisClock.now(this.redis);
		assertThat(state("hb", ofGone)).isEqualTo(JobState.READY);
		assertThat(admin.job("hb", ofGone.id()).orElseThrow().lastError()).contains("heartbeat");
		assertThat(state("hb", ofBack)).isEqualTo(JobState.ACTIVE);
		assertThat(takenAt.toEpochMilli()).as("taken back by the Redis clock").isGreaterThanOrEqualTo(now + 3000);
	}

	@Test
	void aQuietHourShiftsOnlyLeasesThatRanOutWithinTheCap() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueueAll("quiet", List.of(1, 2), JobOptions.defaults());
		ReservedJob longAgo = queues.reserveBatch("quiet", 1, LONG_LEASE, "gone").jobs().get(0);
		ReservedJob lately = queues.reserveBatch("quiet", 1, LONG_LEASE, "gone").jobs().get(0);

		// nobody called the queue for an hour; one lease ran out 2 minutes ago, the other 1 s ago
		long now = RedisClock.now(this.redis).toEpochMilli();
		this.redis.opsForHash().put("{rq:quiet}:stats", "~seen", Long.toString(now - 3_600_000));
		this.redis.opsForHash().put("{rq:quiet}:stats", "~run", "another-server");
		this.redis.opsForZSet().add("{rq:quiet}:inflight", longAgo.id(), now - 120_000);
		this.redis.opsForZSet().add("{rq:quiet}:inflight", lately.id(), now - 1000);

		List<ReservedJob> taken = queues.reserve("quiet", 10, LONG_LEASE);
		assertThat(taken).extracting(ReservedJob::id).containsExactly(longAgo.id());
		assertThat(this.redis.opsForHash().get("{rq:quiet}:stats", "~outFor")).as("the shift, capped").isEqualTo("60000");
		assertThat(state("quiet", lately)).isEqualTo(JobState.ACTIVE);
	}

	@Test
	void aGapOnTheSameServerShiftsNothing() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueueAll("same", List.of(1, 2), JobOptions.defaults());
		ReservedJob held = queues.reserveBatch("same", 1, LONG_LEASE, "gone").jobs().get(0);
		assertThat(this.redis.opsForHash().get("{rq:same}:stats", "~run")).as("the run id, recorded at first use")
			.isNotNull();

		// nobody called the queue for an hour on the same server; the lease ran out 1 s ago
		long now = RedisClock.now(this.redis).toEpochMilli();
		this.redis.opsForHash().put("{rq:same}:stats", "~seen", Long.toString(now - 3_600_000));
		this.redis.opsForZSet().add("{rq:same}:inflight", held.id(), now - 1000);

		List<ReservedJob> taken = queues.reserve("same", 1, LONG_LEASE);
		assertThat(taken).extracting(ReservedJob::id).containsExactly(held.id());
		assertThat(this.redis.opsForHash().hasKey("{rq:same}:stats", "~outTo")).isFalse();
	}

	@Test
	void aQuietQueueWithNothingInFlightShiftsNothing() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue("idle", 1);
		long now = RedisClock.now(this.redis).toEpochMilli();
		this.redis.opsForHash().put("{rq:idle}:stats", "~seen", Long.toString(now - 3_600_000));

		// the first call after the quiet hour hands out a job to a worker that dies at once
		ReservedJob held = queues.reserveBatch("idle", 1, Duration.ofMillis(200), "gone").jobs().get(0);
		assertThat(this.redis.opsForHash().hasKey("{rq:idle}:stats", "~outTo")).isFalse();

		ReservedJob again = await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> queues.reserve("idle", 1, LONG_LEASE), (jobs) -> !jobs.isEmpty())
			.get(0);
		assertThat(again.id()).isEqualTo(held.id());
		// handed out again when its lease ran out, not a shift later (Redis clock)
		long reservedAgainAt = again.leaseUntil().toEpochMilli() - LONG_LEASE.toMillis();
		assertThat(reservedAgainAt - held.leaseUntil().toEpochMilli()).isLessThan(30_000);
	}

	private JobState state(String queue, ReservedJob job) {
		return new QueueAdmin(new QueueTemplate(this.connectionFactory)).job(queue, job.id()).orElseThrow().state();
	}

}
