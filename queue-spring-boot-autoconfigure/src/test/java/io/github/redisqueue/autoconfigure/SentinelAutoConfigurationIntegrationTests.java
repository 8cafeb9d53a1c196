package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redisqueue.annotation.QueueListener;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.testing.redis.RedisSentinelProcesses;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Behind Redis Sentinel, Spring Boot's own {@code spring.data.redis.sentinel.*} properties are all
 * an application sets: producers, listeners and the durable enqueue work through the master the
 * sentinels name.
 */
// on one server only: it starts a Sentinel set of its own
@Tag("single-node")
class SentinelAutoConfigurationIntegrationTests {

	@Test
	void listenersRunBehindSentinelWithSpringBootsOwnProperties() {
		try (RedisSentinelProcesses sentinels = RedisSentinelProcesses.start()) {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
						QueueListenerAutoConfiguration.class))
				.withUserConfiguration(Greeter.class)
				.withPropertyValues("spring.data.redis.sentinel.master=" + sentinels.masterName(),
						"spring.data.redis.sentinel.nodes=" + String.join(",", sentinels.sentinelNodes()),
						"queue.listener.poll-interval=200ms", "queue.durable-enqueue.replicas=1")
				.run((context) -> {
					assertThat(((LettuceConnectionFactory) context.getBean(RedisConnectionFactory.class))
						.getSentinelConfiguration()).isNotNull();
					QueueTemplate queues = context.getBean(QueueTemplate.class);
					queues.enqueue("greetings", "Ada");
					queues.enqueue("greetings", "Grace");

					Greeter greeter = context.getBean(Greeter.class);
					await().atMost(Duration.ofSeconds(10)).until(() -> greeter.names.size() == 2);
					assertThat(greeter.names).containsExactlyInAnyOrder("Ada", "Grace");
					QueueAdmin admin = context.getBean(QueueAdmin.class);
					await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("greetings").total("completed") == 2);
				});
		}
	}

	static class Greeter {

		final List<String> names = new CopyOnWriteArrayList<>();

		@QueueListener(queue = "greetings", id = "greeter")
		void greet(String name) {
			this.names.add(name);
		}

	}

}
