package io.github.redisqueue.core;

import java.time.Duration;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A producer learns within the enqueue timeout that Redis does not answer, instead of waiting
 * for the client's command timeout; a retry with an idempotency key cannot create the job twice.
 */
class EnqueueTimeoutIntegrationTests {

	@Test
	void enqueueFailsWithinItsTimeoutWhileRedisHangsAndAnIdempotentRetryCreatesOneJob() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			try {
				QueueTemplate queues = new QueueTemplate(factory);
				QueueAdmin admin = new QueueAdmin(queues);
				queues.setEnqueueTimeout(Duration.ofMillis(500));
				JobOptions once = JobOptions.builder().idempotencyKey("order-42").build();
				assertThat(queues.enqueue("orders", "warm-up").duplicate()).isFalse();

				server.freeze();
				try {
					assertTimeoutPreemptively(Duration.ofSeconds(3),
							() -> assertThatExceptionOfType(QueueException.class)
								.isThrownBy(() -> queues.enqueue("orders", "order 42", once))
								.withMessageContaining("did not answer within PT0.5S")
								.withCauseInstanceOf(QueryTimeoutException.class));
				}
				finally {
					server.thaw();
				}

				// whether or not the first call took effect, the retry leaves exactly one job
				EnqueueResult retried = queues.enqueue("orders", "order 42", once);
				assertThat(queues.enqueue("orders", "order 42", once).id()).isEqualTo(retried.id());
				assertThat(admin.counts("orders").ready()).isEqualTo(2);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void timeoutMustBeSensible() {
		QueueTemplate queues = new QueueTemplate(TestRedis.connectionFactory(TestRedis.shared()));
		assertThatIllegalArgumentException().isThrownBy(() -> queues.setEnqueueTimeout(Duration.ZERO))
			.withMessageContaining("from 1 ms to 10 minutes");
	}

}
