package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.RedisServerProcess;
import io.github.redisqueue.test.TestRedis;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * No busy polling: an idle container sends at most one command per poll interval, and a job
 * enqueued to an idle queue starts within milliseconds.
 */
// on one server only: it counts the commands of a server of its own
@Tag("single-node")
class IdleContainerIntegrationTests {

	private static final Duration POLL = Duration.ofMillis(250);

	private static final Duration WINDOW = Duration.ofSeconds(3);

	@Test
	void idleContainerSendsAtMostOneCommandPerPollIntervalAndWakesAtOnceOnEnqueue() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			QueueListenerContainer container = null;
			try {
				QueueTemplate queues = new QueueTemplate(factory);
				AtomicInteger handled = new AtomicInteger();
				container = new QueueListenerContainer("idle", "idle", queues, (job, ack) -> handled.incrementAndGet(),
						ContainerOptions.builder().pollInterval(POLL).concurrency(4).build(), null, null);
				container.start();
				await().atMost(Duration.ofSeconds(5))
					.until(() -> TestRedis.commandStats(server.endpoint()).getOrDefault("blmove", 0L) >= 1);

				TestRedis.resetCommandStats(server.endpoint());
				// the window is the measurement itself: count what an idle container sends in it
				await().pollDelay(WINDOW).atMost(WINDOW.plusSeconds(1)).until(() -> true);
				long commands = TestRedis.commandStats(server.endpoint()).values().stream().mapToLong(Long::longValue).sum();

				long intervals = WINDOW.toMillis() / POLL.toMillis();
				assertThat(commands).as("commands sent by an idle container in %s intervals", intervals)
					.isLessThanOrEqualTo(intervals + 1);

				long start = System.nanoTime();
				queues.enqueue("idle", "wake");
				await().atMost(Duration.ofSeconds(2)).until(() -> handled.get() == 1);
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(POLL);
			}
			finally {
				if (container != null) {
					container.stop();
				}
				factory.destroy();
			}
		}
	}

}
