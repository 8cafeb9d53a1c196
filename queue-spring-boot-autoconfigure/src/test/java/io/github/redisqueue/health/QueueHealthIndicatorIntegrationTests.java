package io.github.redisqueue.health;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.RedisServerProcess;
import io.github.redisqueue.test.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The queue health: UP with per-queue details, the threshold status past a threshold, DOWN while
 * Redis is stopped and UP again when it returns.
 */
class QueueHealthIndicatorIntegrationTests {

	@Test
	void upWithDetailsThenDownWhileRedisIsStoppedThenUpAgain() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			factory.setTimeout(Duration.ofSeconds(1).toMillis());
			try {
				QueueTemplate queues = new QueueTemplate(factory);
				queues.enqueueAll("emails", List.of(1, 2), JobOptions.defaults());
				QueueHealthIndicator indicator = new QueueHealthIndicator(queues, null, null, "OUT_OF_SERVICE");

				Health up = indicator.health();
				assertThat(up.getStatus()).isEqualTo(Status.UP);
				assertThat(up.getDetails().get("queues")).isInstanceOf(Map.class);
				assertThat(((Map<?, ?>) ((Map<?, ?>) up.getDetails().get("queues")).get("emails")).get("ready"))
					.isEqualTo(2L);

				server.stop();
				Health down = indicator.health();
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails()).containsKey("error");

				server.restart();
				await().atMost(Duration.ofSeconds(30)).until(() -> indicator.health().getStatus().equals(Status.UP));
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void thresholdPassedGivesTheConfiguredStatus() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			try {
				QueueTemplate queues = new QueueTemplate(factory);
				queues.enqueueAll("emails", List.of(1, 2, 3), JobOptions.defaults());
				Health health = new QueueHealthIndicator(queues, null, 2L, "OUT_OF_SERVICE").health();
				assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
				assertThat(health.getDetails().get("thresholdsExceeded").toString()).contains("emails: 3 ready jobs > 2");
				assertThat(new QueueHealthIndicator(queues, null, 3L, "OUT_OF_SERVICE").health().getStatus())
					.isEqualTo(Status.UP);
			}
			finally {
				factory.destroy();
			}
		}
	}

}
