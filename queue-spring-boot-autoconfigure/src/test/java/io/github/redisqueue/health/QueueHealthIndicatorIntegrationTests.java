package io.github.redisqueue.health;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.health.QueueHealthIndicator.Thresholds;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.QueueListenerContainer;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.core.task.TaskExecutor;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The queue health: UP with per-queue details, the threshold status past a threshold, DOWN while
 * Redis is stopped or hangs (within the timeout) and UP again when it returns, DOWN when a
 * listener container stopped on its own.
 */
class QueueHealthIndicatorIntegrationTests {

	// how long a check waits for Redis: long enough for a loaded machine to answer, far below the
	// connection's command timeout (60 s) that a hanging Redis would otherwise cost
	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	@Test
	void upWithDetailsThenDownWhileRedisIsStoppedThenUpAgain() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			factory.setTimeout(Duration.ofSeconds(1).toMillis());
			try {
				QueueTemplate queues = new QueueTemplate(factory);
				queues.enqueueAll("emails", List.of(1, 2), JobOptions.defaults());
				QueueHealthIndicator indicator = indicator(queues, Thresholds.none(), List.of());

				Health up = indicator.health();
				assertThat(up.getStatus()).isEqualTo(Status.UP);
				assertThat(up.getDetails().get("queues")).isInstanceOf(Map.class);
				assertThat(queueDetail(up, "emails").get("ready")).isEqualTo(2L);
				assertThat(queueDetail(up, "emails").get("headAgeMillis")).isInstanceOf(Long.class);

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
	void upWithTheDetailsOfQueuesInDifferentSlotsOfTheSharedRedis() {
		TestRedis.flushAll(TestRedis.shared());
		LettuceConnectionFactory factory = TestRedis.connectionFactory(TestRedis.shared());
		try {
			QueueTemplate queues = new QueueTemplate(factory);
			// on a cluster, these queues live on different masters: one pipelined read per node
			queues.enqueueAll("emails", List.of(1, 2), JobOptions.defaults());
			queues.enqueue("orders", 3);
			queues.enqueueAll("reports", List.of(4, 5, 6), JobOptions.defaults());

			Health up = indicator(queues, Thresholds.none(), List.of()).health();

			assertThat(up.getStatus()).isEqualTo(Status.UP);
			assertThat(queueDetail(up, "emails").get("ready")).isEqualTo(2L);
			assertThat(queueDetail(up, "orders").get("ready")).isEqualTo(1L);
			assertThat(queueDetail(up, "reports").get("ready")).isEqualTo(3L);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void downWithinTheTimeoutWhileRedisHangs() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			try {
				QueueTemplate queues = new QueueTemplate(factory);
				queues.enqueue("emails", 1);
				QueueHealthIndicator indicator = indicator(queues, Thresholds.none(), List.of());
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

				server.freeze();
				// DOWN by the indicator's timeout, long before the connection's command timeout (60 s)
				CompletableFuture<Health> check = CompletableFuture.supplyAsync(indicator::health);
				await().atMost(Duration.ofSeconds(30)).until(check::isDone);
				Health down = check.join();
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails().get("error").toString()).contains("did not answer within");
				// a second check while the first still waits reuses it rather than piling up
				assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);

				server.thaw();
				await().atMost(Duration.ofSeconds(30)).until(() -> indicator.health().getStatus().equals(Status.UP));
			}
			finally {
				server.thaw();
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
				Health health = indicator(queues, new Thresholds(null, 2L, null, "OUT_OF_SERVICE"), List.of()).health();
				assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
				assertThat(health.getDetails().get("thresholdsExceeded").toString()).contains("emails: 3 ready jobs > 2");
				assertThat(indicator(queues, new Thresholds(null, 3L, null, "OUT_OF_SERVICE"), List.of()).health()
					.getStatus()).isEqualTo(Status.UP);

				Thresholds age = new Thresholds(null, null, Duration.ofMillis(200), "WARNING");
				await().atMost(Duration.ofSeconds(30))
					.until(() -> indicator(queues, age, List.of()).health().getStatus().getCode().equals("WARNING"));
				assertThat(indicator(queues, age, List.of()).health().getDetails().get("thresholdsExceeded").toString())
					.contains("emails: next job ready for");
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void downWhenAListenerContainerStoppedOnItsOwn() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			QueueListenerContainer container = null;
			try {
				QueueTemplate queues = new QueueTemplate(factory);
				TaskExecutor broken = (task) -> {
					throw new LinkageError("executor broken for the test");
				};
				container = new QueueListenerContainer("mailer", "emails", queues, (job, ack) -> {
				}, ContainerOptions.builder().pollInterval(Duration.ofMillis(100)).build(), null, broken);
				QueueHealthIndicator indicator = indicator(queues, Thresholds.none(), List.of(container));
				container.start();
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

				queues.enqueue("emails", 1);
				await().atMost(Duration.ofSeconds(10)).until(() -> indicator.health().getStatus().equals(Status.DOWN));
				Health down = indicator.health();
				assertThat(down.getDetails().get("failedContainers").toString()).contains("mailer")
					.contains("executor broken for the test");
				assertThat(queueDetail(down, "emails").get("ready")).isEqualTo(1L);

				container.stop();
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			}
			finally {
				if (container != null) {
					container.stop();
				}
				factory.destroy();
			}
		}
	}

	private static QueueHealthIndicator indicator(QueueTemplate queues, Thresholds thresholds,
			List<QueueListenerContainer> containers) {
		return new QueueHealthIndicator(new QueueAdmin(queues), thresholds, TIMEOUT, () -> containers);
	}

	private static Map<?, ?> queueDetail(Health health, String queue) {
		return (Map<?, ?>) ((Map<?, ?>) health.getDetails().get("queues")).get(queue);
	}

}
