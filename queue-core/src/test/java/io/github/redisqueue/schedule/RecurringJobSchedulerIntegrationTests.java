package io.github.redisqueue.schedule;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redisqueue.core.MissedTicks;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueSchedules;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.RedisClock;
import org.junit.jupiter.api.Test;

import org.springframework.scheduling.support.CronExpression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The scheduler's thread on a real Redis: it fires its schedules' ticks, a payload source that
 * throws costs that instance the tick only, and a stopped scheduler fires nothing more.
 */
class RecurringJobSchedulerIntegrationTests extends AbstractRedisIntegrationTests {

	private static RecurringJobDefinition everySecond(String name, String queue,
			java.util.function.Function<Instant, byte[]> payload) {
		return new RecurringJobDefinition(name, queue, CronExpression.parse("* * * * * *"), ZoneId.of("UTC"),
				MissedTicks.FIRE_ONCE, RecurringJobDefinition.DEFAULT_GRACE, payload);
	}

	@Test
	void firesEveryTickAndAStoppedSchedulerFiresNothingMore() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		RecurringJobScheduler scheduler = new RecurringJobScheduler(queues);
		scheduler.register(everySecond("beat", "beats", (tick) -> "\"beat\"".getBytes(StandardCharsets.UTF_8)));
		scheduler.start();
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> admin.counts("beats").ready() >= 3);
			assertThat(scheduler.getNextTick(scheduler.getDefinitions().get(0))).isNotNull();
			assertThatIllegalStateException()
				.isThrownBy(() -> scheduler.register(everySecond("late", "beats", (tick) -> new byte[0])));
		}
		finally {
			scheduler.stop();
		}
		assertThat(scheduler.isRunning()).isFalse();
		long stopped = admin.counts("beats").ready();
		RedisClock.awaitPast(this.redis, RedisClock.now(this.redis).plusMillis(2100));
		assertThat(admin.counts("beats").ready()).isEqualTo(stopped);
	}

	@Test
	void aPayloadSourceThatThrowsLeavesTheTickToAnotherInstance() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		AtomicInteger failures = new AtomicInteger();
		RecurringJobScheduler broken = new RecurringJobScheduler(queues);
		broken.register(everySecond("beat", "beats", (tick) -> {
			failures.incrementAndGet();
			throw new IllegalStateException("no payload");
		}));
		broken.start();
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> failures.get() >= 2);
			assertThat(admin.counts("beats").ready()).isZero();
			assertThat(new QueueSchedules(queues).peek("beats", "beat").lastTick()).isNull();

			RecurringJobScheduler working = new RecurringJobScheduler(queues);
			working.register(everySecond("beat", "beats", (tick) -> "\"beat\"".getBytes(StandardCharsets.UTF_8)));
			working.start();
			try {
				await().atMost(Duration.ofSeconds(10)).until(() -> admin.counts("beats").ready() >= 2);
			}
			finally {
				working.stop();
			}
		}
		finally {
			broken.stop();
		}
	}

}
