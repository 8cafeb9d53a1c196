package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * No busy polling: an idle container sends at most one command per poll interval once it has been
 * quiet for a few, and a job
 * enqueued to an idle queue wakes it at once (long before its next poll).
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
				// past the first waits, which carry a reserve behind them in case they are woken (3
				// after a loop was last woken, see FetchLoop.RESERVING_WAITS)
				await().atMost(Duration.ofSeconds(30))
					.until(() -> TestRedis.commandStats(server.endpoint()).getOrDefault("blmove", 0L) >= 4);

				// the window is the measurement itself: count what an idle container sends in it; a
				// loaded machine may stretch it, so the intervals are counted over the window as it was
				long from = System.nanoTime();
				TestRedis.resetCommandStats(server.endpoint());
				await().pollDelay(WINDOW).atMost(WINDOW.plusSeconds(30)).until(() -> true);
				long commands = TestRedis.commandStats(server.endpoint()).values().stream().mapToLong(Long::longValue).sum();
				long intervals = Duration.ofNanos(System.nanoTime() - from).toMillis() / POLL.toMillis();
				assertThat(commands).as("commands sent by an idle container in %s intervals", intervals)
					.isLessThanOrEqualTo(intervals + 1);
				container.stop();

				// the longest poll interval (and half a lease) longer than the wait below: a job
				// handled within it woke the container
				container = new QueueListenerContainer("waking", "idle", queues, (job, ack) -> handled.incrementAndGet(),
						ContainerOptions.builder().pollInterval(Duration.ofSeconds(30)).lease(Duration.ofMinutes(60))
							.concurrency(4).build(), null, null);
				TestRedis.resetCommandStats(server.endpoint());
				container.start();
				await().atMost(Duration.ofSeconds(30))
					.until(() -> TestRedis.commandStats(server.endpoint()).getOrDefault("blmove", 0L) >= 1);
				queues.enqueue("idle", "wake");
				await().atMost(Duration.ofSeconds(20)).until(() -> handled.get() == 1);
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
