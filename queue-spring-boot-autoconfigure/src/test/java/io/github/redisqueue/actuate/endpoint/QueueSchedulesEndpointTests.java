package io.github.redisqueue.actuate.endpoint;

import java.time.Instant;
import java.util.List;

import io.github.redisqueue.autoconfigure.QueueAutoConfiguration;
import io.github.redisqueue.autoconfigure.QueueScheduleAutoConfiguration;
import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The {@code queueschedules} endpoint lists this instance's recurring jobs, by queue or all of them, with
 * their last tick and their next tick by the Redis server clock.
 */
class QueueSchedulesEndpointTests {

	private final RedisEndpoint redis = TestRedis.shared();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
				QueueScheduleAutoConfiguration.class))
		.withPropertyValues(TestRedis.springProperties(this.redis))
		.withPropertyValues("management.endpoints.web.exposure.include=queueschedules",
				"queue.schedules.digest.cron=0 0 8 * * MON-FRI", "queue.schedules.digest.queue=emails",
				"queue.schedules.digest.zone=Europe/Paris", "queue.schedules.digest.missed=skip",
				"queue.schedules.beat.cron=* * * * * *", "queue.schedules.beat.queue=beats");

	@BeforeEach
	void flush() {
		TestRedis.flushAll(this.redis);
	}

	@Test
	void listsTheSchedulesOfOneQueueOrOfAllWithTheirTicks() {
		this.contextRunner.run((context) -> {
			QueueSchedulesEndpoint endpoint = context.getBean(QueueSchedulesEndpoint.class);
			List<ScheduleDescriptor> emails = endpoint.schedulesOf("emails");
			assertThat(emails).singleElement().satisfies((digest) -> {
				assertThat(digest.name()).isEqualTo("digest");
				assertThat(digest.cron()).isEqualTo("0 0 8 * * MON-FRI");
				assertThat(digest.zone()).isEqualTo("Europe/Paris");
				assertThat(digest.missed()).isEqualTo("skip");
				assertThat(digest.graceMillis()).isEqualTo(10_000);
				assertThat(digest.nextTick()).isAfter(Instant.now().minusSeconds(60));
				assertThat(digest.nextTick().atZone(java.time.ZoneId.of("Europe/Paris")).getHour()).isEqualTo(8);
			});
			assertThat(endpoint.schedules()).extracting(ScheduleDescriptor::name)
				.containsExactly("digest", "beat");
			assertThat(endpoint.schedulesOf("nothing-here")).isEmpty();
			await().untilAsserted(() -> assertThat(endpoint.schedulesOf("beats")).singleElement()
				.satisfies((beat) -> assertThat(beat.lastTick()).isNotNull().isBefore(beat.nextTick())));
		});
	}

	@Test
	void anInvalidQueueNameIsAnInvalidRequest() {
		this.contextRunner.run((context) -> assertThatExceptionOfType(InvalidEndpointRequestException.class)
			.isThrownBy(() -> context.getBean(QueueSchedulesEndpoint.class).schedulesOf("-x")));
	}

	@Test
	void isReadOnlyAndAbsentUnlessExposed() {
		assertThat(QueueSchedulesEndpoint.class.getAnnotation(org.springframework.boot.actuate.endpoint.annotation.Endpoint.class)
			.defaultAccess()).isEqualTo(org.springframework.boot.actuate.endpoint.Access.READ_ONLY);
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).doesNotHaveBean(QueueSchedulesEndpoint.class));
	}

}
