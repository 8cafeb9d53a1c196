package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.core.QueueSchedules;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis (with an append-only file) stopped for a few ticks and started again on the same port,
 * under three instances running two every-second schedules: no tick gets two jobs (the last tick
 * survived the restart), and the ticks missed while Redis was down follow each schedule's policy:
 * one job for the missed span under {@code fire-once}, none under {@code skip}.
 */
// on one server only: it stops and restarts a server of its own
@Tag("single-node")
class RecurringJobsRestartIntegrationTests {

	@Test
	void restartDoublesNoTickAndMissedTicksFollowThePolicy() {
		try (RedisServerProcess server = TestRedis.startPrivate("--appendonly", "yes", "--appendfsync", "always")) {
			ApplicationContextRunner runner = new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
						QueueScheduleAutoConfiguration.class))
				.withPropertyValues(TestRedis.springProperties(server.endpoint()))
				.withPropertyValues("queue.redis-check.enabled=false", "queue.schedules.once.cron=* * * * * *",
						"queue.schedules.once.queue=once", "queue.schedules.once.payload=\"once\"",
						"queue.schedules.skip.cron=* * * * * *", "queue.schedules.skip.queue=skipped",
						"queue.schedules.skip.missed=skip", "queue.schedules.skip.payload=\"skip\"");
			runner.withPropertyValues("queue.worker-id=a").run((a) -> runner.withPropertyValues("queue.worker-id=b").run((b) -> runner
				.withPropertyValues("queue.worker-id=c").run((c) -> {
				QueueTemplate queues = a.getBean(QueueTemplate.class);
				List<ReservedJob> once = new ArrayList<>();
				List<ReservedJob> skipped = new ArrayList<>();
				await().atMost(Duration.ofSeconds(15)).until(() -> {
					drain(queues, "once", once);
					drain(queues, "skipped", skipped);
					return once.size() >= 3 && skipped.size() >= 3;
				});
				Instant stoppedAt = serverTime(queues);
				long pid = server.pid();
				server.stop();
				assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
				// Redis stays down across three ticks
				long down = System.nanoTime();
				await().atMost(Duration.ofSeconds(10))
					.until(() -> System.nanoTime() - down >= Duration.ofMillis(3500).toNanos());
				server.restart();
				Instant restartedAt = await().atMost(Duration.ofSeconds(30))
					.ignoreExceptions()
					.until(() -> serverTime(queues), (time) -> time != null);
				await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
					drain(queues, "once", once);
					drain(queues, "skipped", skipped);
					return lastTick(once).isAfter(restartedAt.plusSeconds(3))
							&& lastTick(skipped).isAfter(restartedAt.plusSeconds(3));
				});

				assertThat(countPerTick(once)).allSatisfy((tick, count) -> assertThat(count).as("once %s", tick).isEqualTo(1));
				assertThat(countPerTick(skipped)).allSatisfy((tick, count) -> assertThat(count).as("skip %s", tick).isEqualTo(1));
				// a job for a missed tick is enqueued by the same call as the on-time tick after it
				List<ReservedJob> onceMissed = missedSpanJobs(once);
				assertThat(onceMissed).singleElement()
					.satisfies((job) -> assertThat(tick(job)).isAfter(stoppedAt).isBefore(restartedAt.plusSeconds(1)));
				assertThat(missedSpanJobs(skipped)).isEmpty();
				// the outage spanned ticks, and fire-once did not fill it in
				assertThat(missingTicks(skipped, stoppedAt, restartedAt)).isGreaterThanOrEqualTo(2);
				assertThat(missingTicks(once, stoppedAt, restartedAt)).isGreaterThanOrEqualTo(1);
			})));
		}
	}

	private static Instant serverTime(QueueTemplate queues) {
		try (RedisConnection connection = queues.getConnectionFactory().getConnection()) {
			return Instant.ofEpochMilli(connection.serverCommands().time(TimeUnit.MILLISECONDS));
		}
	}

	private static void drain(QueueTemplate queues, String queue, List<ReservedJob> into) {
		for (ReservedJob job : queues.reserve(queue, 100, Duration.ofMinutes(1))) {
			into.add(job);
			queues.complete(queue, job.ref());
		}
	}

	private static Instant tick(ReservedJob job) {
		return Instant.parse(job.headers().get(QueueSchedules.TICK_HEADER));
	}

	private static Instant lastTick(List<ReservedJob> jobs) {
		return jobs.stream().map(RecurringJobsRestartIntegrationTests::tick).max(Instant::compareTo).orElse(Instant.EPOCH);
	}

	private static Map<Instant, Integer> countPerTick(List<ReservedJob> jobs) {
		Map<Instant, Integer> counts = new TreeMap<>();
		jobs.forEach((job) -> counts.merge(tick(job), 1, Integer::sum));
		return counts;
	}

	/** Jobs enqueued at the same server time as a job of a later tick: fired for a missed span. */
	private static List<ReservedJob> missedSpanJobs(List<ReservedJob> jobs) {
		Map<Instant, List<ReservedJob>> byEnqueue = new HashMap<>();
		jobs.forEach((job) -> byEnqueue.computeIfAbsent(job.enqueuedAt(), (at) -> new ArrayList<>()).add(job));
		List<ReservedJob> missed = new ArrayList<>();
		byEnqueue.values().stream().filter((same) -> same.size() > 1).forEach((same) -> {
			Instant latest = same.stream().map(RecurringJobsRestartIntegrationTests::tick).max(Instant::compareTo).orElseThrow();
			same.stream().filter((job) -> tick(job).isBefore(latest)).forEach(missed::add);
		});
		return missed;
	}

	/** Whole seconds between the two instants that have no job. */
	private static long missingTicks(List<ReservedJob> jobs, Instant from, Instant to) {
		Map<Instant, Integer> counts = countPerTick(jobs);
		long missing = 0;
		for (Instant t = from.plusSeconds(1).truncatedTo(ChronoUnit.SECONDS); t.isBefore(to);
				t = t.plusSeconds(1)) {
			if (!counts.containsKey(t)) {
				missing++;
			}
		}
		return missing;
	}

}
