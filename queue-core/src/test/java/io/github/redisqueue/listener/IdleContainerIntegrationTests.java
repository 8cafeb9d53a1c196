package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.RedisServerProcess;
import io.github.redisqueue.test.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * No busy polling: an idle container sends at most one command per poll interval, and a job
 * enqueued to an idle queue starts within milliseconds.
 */
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
						ContainerOptions.defaults().withPollInterval(POLL).withConcurrency(4), null, null);
				container.start();
				await().atMost(Duration.ofSeconds(5)).until(() -> commandCalls(factory, "blmove") >= 1);

				resetStats(factory);
				await().pollDelay(WINDOW).atMost(WINDOW.plusSeconds(1)).until(() -> true);
				long commands = totalCommandsExceptStats(factory);

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

	private static void resetStats(LettuceConnectionFactory factory) {
		try (RedisConnection connection = factory.getConnection()) {
			connection.serverCommands().resetConfigStats();
		}
	}

	private static long commandCalls(LettuceConnectionFactory factory, String command) {
		Properties stats = commandStats(factory);
		return calls(stats.getProperty("cmdstat_" + command));
	}

	private static long totalCommandsExceptStats(LettuceConnectionFactory factory) {
		Properties stats = commandStats(factory);
		long total = 0;
		for (String name : stats.stringPropertyNames()) {
			if (!name.equals("cmdstat_info") && !name.equals("cmdstat_config")) {
				total += calls(stats.getProperty(name));
			}
		}
		return total;
	}

	private static Properties commandStats(LettuceConnectionFactory factory) {
		try (RedisConnection connection = factory.getConnection()) {
			return connection.serverCommands().info("commandstats");
		}
	}

	private static long calls(String stat) {
		if (stat == null) {
			return 0;
		}
		// calls=12,usec=...
		String calls = stat.substring(stat.indexOf("calls=") + 6);
		return Long.parseLong(calls.substring(0, calls.indexOf(',')));
	}

}
