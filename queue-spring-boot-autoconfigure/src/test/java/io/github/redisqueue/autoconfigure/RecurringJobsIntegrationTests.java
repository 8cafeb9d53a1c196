package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redisqueue.annotation.RecurringJob;
import io.github.redisqueue.core.Job;
import io.github.redisqueue.core.QueueSchedules;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.schedule.RecurringJobScheduler;
import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Recurring jobs on a real Redis: three application contexts (three instances, each with its own
 * worker id) running the same schedule enqueue one job per tick, also when one of them stops; an
 * {@code @RecurringJob} method's return value is the payload.
 */
class RecurringJobsIntegrationTests {

	private final RedisEndpoint redis = TestRedis.shared();

	@BeforeEach
	void flush() {
		TestRedis.flushAll(this.redis);
	}

	private ApplicationContextRunner instance(String workerId) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
					QueueScheduleAutoConfiguration.class))
			.withPropertyValues(TestRedis.springProperties(this.redis))
			.withPropertyValues("queue.worker-id=" + workerId, "queue.schedules.heartbeat.cron=* * * * * *",
					"queue.schedules.heartbeat.queue=beats", "queue.schedules.heartbeat.payload={\"kind\":\"beat\"}");
	}

	@Test
	void threeInstancesEnqueueOneJobPerTickForTenSecondsAndAStoppedInstanceChangesNothing() {
		instance("a").run((a) -> instance("b").run((b) -> instance("c").run((c) -> {
			assertThat(c.getBean(RecurringJobScheduler.class).getDefinitions()).singleElement()
				.satisfies((definition) -> assertThat(definition.queue()).isEqualTo("beats"));
			QueueTemplate queues = a.getBean(QueueTemplate.class);
			Map<Instant, Integer> jobsPerTick = new TreeMap<>();
			await().atMost(Duration.ofSeconds(10)).until(() -> drain(queues, "beats", jobsPerTick) > 0);
			Instant start = ((TreeMap<Instant, Integer>) jobsPerTick).firstKey().plusSeconds(1);
			Instant end = start.plusSeconds(10);
			await().atMost(Duration.ofSeconds(20))
				.until(() -> drain(queues, "beats", jobsPerTick) > 0 && lastTick(jobsPerTick).isAfter(start.plusSeconds(5)));
			b.close();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> drain(queues, "beats", jobsPerTick) >= 0 && !lastTick(jobsPerTick).isBefore(end));

			long inWindow = jobsPerTick.keySet().stream().filter((t) -> !t.isBefore(start) && t.isBefore(end)).count();
			assertThat(inWindow).isBetween(9L, 11L);
			assertThat(jobsPerTick).allSatisfy((tick, count) -> assertThat(count).as("jobs of tick %s", tick).isEqualTo(1));
			// every tick of the window has its job: ticks are whole seconds
			assertThat(inWindow).isEqualTo(10);
		})));
	}

	@Test
	void recurringJobMethodReturnsThePayloadAndNullEnqueuesNothing() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
					QueueScheduleAutoConfiguration.class))
			.withPropertyValues(TestRedis.springProperties(this.redis))
			.withPropertyValues("digest.queue=digests")
			.withUserConfiguration(DigestConfiguration.class)
			.run((context) -> {
				QueueTemplate queues = context.getBean(QueueTemplate.class);
				Digests digests = context.getBean(Digests.class);
				assertThat(context.getBean(RecurringJobScheduler.class).getDefinitions())
					.extracting((definition) -> definition.name())
					.containsExactlyInAnyOrder("Digests.digest", "nothing");
				List<Job<Digest>> jobs = new java.util.ArrayList<>();
				await().atMost(Duration.ofSeconds(10)).until(() -> {
					jobs.addAll(queues.reserve("digests", 10, Duration.ofMinutes(1), Digest.class));
					return jobs.size() >= 2;
				});
				Job<Digest> first = jobs.get(0);
				assertThat(first.payload().subject()).isEqualTo("Digest");
				assertThat(first.payload().tick()).isEqualTo(first.meta().headers().get(QueueSchedules.TICK_HEADER));
				assertThat(first.meta().headers()).containsEntry(QueueSchedules.SCHEDULE_HEADER, "Digests.digest");
				assertThat(digests.nothingCalls.get()).isPositive();
				assertThat(queues.reserve("empty", 10, Duration.ofMinutes(1))).isEmpty();
				// the null ticks count as handled: none is fired later as missed
				QueueSchedules schedules = new QueueSchedules(queues);
				await().atMost(Duration.ofSeconds(30)).until(() -> schedules.peek("empty", "nothing").lastTick() != null);
			});
	}

	private static Instant lastTick(Map<Instant, Integer> jobsPerTick) {
		return jobsPerTick.isEmpty() ? Instant.EPOCH : ((TreeMap<Instant, Integer>) jobsPerTick).lastKey();
	}

	/** Reserves and completes what is ready, counting jobs per tick; the number drained. */
	private static int drain(QueueTemplate queues, String queue, Map<Instant, Integer> jobsPerTick) {
		List<ReservedJob> jobs = queues.reserve(queue, 100, Duration.ofMinutes(1));
		for (ReservedJob job : jobs) {
			jobsPerTick.merge(Instant.parse(job.headers().get(QueueSchedules.TICK_HEADER)), 1, Integer::sum);
			queues.complete(queue, job.ref());
		}
		return jobs.size();
	}

	record Digest(String subject, String tick) {
	}

	static class Digests {

		final AtomicInteger nothingCalls = new AtomicInteger();

		@RecurringJob(cron = "* * * * * *", queue = "${digest.queue}", zone = "Europe/Paris")
		Digest digest(Instant tick) {
			return new Digest("Digest", tick.toString());
		}

		@RecurringJob(cron = "* * * * * *", queue = "empty", name = "nothing", missed = "fire-once")
		@Nullable Digest nothing() {
			this.nothingCalls.incrementAndGet();
			return null;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class DigestConfiguration {

		@Bean
		Digests digests() {
			return new Digests();
		}

	}

}
