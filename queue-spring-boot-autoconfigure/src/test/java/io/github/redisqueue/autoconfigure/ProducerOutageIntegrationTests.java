package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.util.function.Consumer;

import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.RedisServerProcess;
import io.github.redisqueue.test.TestRedis;
import io.lettuce.core.ClientOptions;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.QueryTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What a producer sees while Redis is down, as README's "While Redis is down" states it: an
 * enqueue waits for {@code spring.data.redis.timeout} and then throws, whether redis-server is
 * stopped or frozen; with Lettuce rejecting commands while disconnected it throws at once.
 */
class ProducerOutageIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	@Test
	void enqueueWaitsForTheCommandTimeoutWhileRedisIsStopped() {
		whileDown(RedisServerProcess::stop, (queues) -> {
			long start = System.nanoTime();
			assertThatExceptionOfType(QueryTimeoutException.class).isThrownBy(() -> queues.enqueue("outage", "x"));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(TIMEOUT.minusMillis(100),
					TIMEOUT.plusSeconds(2));
		});
	}

	@Test
	void enqueueWaitsForTheCommandTimeoutWhileRedisHangs() {
		whileDown(RedisServerProcess::freeze, (queues) -> {
			long start = System.nanoTime();
			assertThatExceptionOfType(QueryTimeoutException.class).isThrownBy(() -> queues.enqueue("outage", "x"));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(TIMEOUT.minusMillis(100),
					TIMEOUT.plusSeconds(2));
		});
	}

	@Test
	void enqueueFailsAtOnceWhenLettuceRejectsCommandsWhileDisconnected() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			runner(server).withBean(LettuceClientOptionsBuilderCustomizer.class,
					() -> (builder) -> builder.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS))
				.run((context) -> {
					QueueTemplate queues = context.getBean(QueueTemplate.class);
					queues.enqueue("outage", "before");
					server.stop();
					long start = System.nanoTime();
					assertThatException().isThrownBy(() -> queues.enqueue("outage", "x"));
					assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
				});
		}
	}

	private void whileDown(Consumer<RedisServerProcess> outage, Consumer<QueueTemplate> check) {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			runner(server).run((context) -> {
				QueueTemplate queues = context.getBean(QueueTemplate.class);
				queues.enqueue("outage", "before");
				outage.accept(server);
				try {
					check.accept(queues);
				}
				finally {
					server.thaw();
				}
			});
		}
	}

	private static ApplicationContextRunner runner(RedisServerProcess server) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"spring.data.redis.timeout=" + TIMEOUT.toMillis() + "ms", "queue.redis-check.enabled=false");
	}

}
