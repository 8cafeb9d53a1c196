package io.github.redisqueue.autoconfigure;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.function.Consumer;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import io.lettuce.core.ClientOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What a producer sees while Redis is down, as docs/redis.md, "While Redis is down", states it: an
 * enqueue fails after {@code queue.enqueue-timeout}, other calls after
 * {@code spring.data.redis.timeout}, whether redis-server is stopped or frozen; with Lettuce
 * rejecting commands while disconnected an enqueue fails at once; with no Redis ever reached, it
 * fails on connecting.
 */
// on one server only: it stops and freezes a server of its own
@Tag("single-node")
class ProducerOutageIntegrationTests {

	private static final Duration ENQUEUE_TIMEOUT = Duration.ofSeconds(1);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	@Test
	void enqueueFailsAfterTheEnqueueTimeoutWhileRedisIsStopped() {
		whileDown(RedisServerProcess::stop, this::enqueueTimesOut);
	}

	@Test
	void enqueueFailsAfterTheEnqueueTimeoutWhileRedisHangs() {
		whileDown(RedisServerProcess::freeze, this::enqueueTimesOut);
	}

	@Test
	void otherCallsFailAfterTheCommandTimeoutWhileRedisHangs() {
		whileDown(RedisServerProcess::freeze, (queues) -> {
			QueueAdmin admin = new QueueAdmin(queues);
			// the exception tells that the command timeout ended the call; the time taken is checked
			// from below only, which no load can break
			long start = System.nanoTime();
			assertThatExceptionOfType(QueryTimeoutException.class).isThrownBy(() -> admin.counts("outage"));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(COMMAND_TIMEOUT.minusMillis(100));
			// calls sent as one batch (the overview behind health and gauges) fail the same way
			long batchStart = System.nanoTime();
			assertThatExceptionOfType(QueryTimeoutException.class).isThrownBy(admin::overview);
			assertThat(Duration.ofNanos(System.nanoTime() - batchStart))
				.isGreaterThanOrEqualTo(COMMAND_TIMEOUT.minusMillis(100));
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
					// refused by the client, not ended by the enqueue timeout
					assertThatException().isThrownBy(() -> queues.enqueue("outage", "x"))
						.withStackTraceContaining("Commands are rejected")
						.satisfies((ex) -> assertThat(ex).hasMessageNotContaining("did not answer within"));
				});
		}
	}

	@Test
	void enqueueFailsToConnectWhenRedisWasNeverReachable() throws Exception {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port,
					"queue.redis-check.enabled=false")
			.run((context) -> {
				long start = System.nanoTime();
				assertThatExceptionOfType(RedisConnectionFailureException.class)
					.isThrownBy(() -> context.getBean(QueueTemplate.class).enqueue("outage", "x"));
				Duration took = Duration.ofNanos(System.nanoTime() - start);
				// the exception tells it failed on connecting, not by the enqueue timeout
				System.out.println("enqueue with no Redis ever reachable failed after " + took.toMillis() + " ms");
			});
	}

	private void enqueueTimesOut(QueueTemplate queues) {
		long start = System.nanoTime();
		assertThatExceptionOfType(QueueException.class).isThrownBy(() -> queues.enqueue("outage", "x"))
			.withMessageContaining("Redis did not answer within PT1S");
		// the message tells that the enqueue timeout ended it; the time taken is checked from below only
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(ENQUEUE_TIMEOUT.minusMillis(100));
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
					"spring.data.redis.timeout=" + COMMAND_TIMEOUT.toMillis() + "ms",
					"queue.enqueue-timeout=" + ENQUEUE_TIMEOUT.toMillis() + "ms", "queue.redis-check.enabled=false");
	}

}
