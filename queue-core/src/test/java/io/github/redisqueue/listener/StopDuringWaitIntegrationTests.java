package io.github.redisqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.QueueWaiter;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A stop ends a fetch loop's wait without closing its connection, so that the reserve sent
 * behind the wait still runs and its reply arrives: what it took is given back at once, counting
 * no attempt, and no handler runs it.
 */
// on one server only: it reads the blocked clients of a server of its own
@Tag("single-node")
class StopDuringWaitIntegrationTests {

	@Test
	void aStopEndsAWaitAndGivesBackWhatTheReserveBehindItTook() throws Exception {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			try {
				QueueTemplate queues = new QueueTemplate(factory);
				QueueAdmin admin = new QueueAdmin(queues);
				AtomicInteger handled = new AtomicInteger();
				// a poll interval as long as the reclaim period: the reserve behind each wait runs
				// even when the wait ends without a wake-up
				String id;
				QueueListenerContainer container = new QueueListenerContainer("stopping", "stopping", queues,
						(job, ack) -> handled.incrementAndGet(), ContainerOptions.builder()
							.pollInterval(Duration.ofSeconds(30)).lease(Duration.ofSeconds(1)).concurrency(2).build(),
						null, null);
				try (QueueWaiter first = queues.openWaiter("stopping")) {
					// a waiter blocked before the container's: the wake-up of the enqueue below is
					// the first blocked client's, so the container's loop keeps waiting
					CompletableFuture<Boolean> taken = CompletableFuture.supplyAsync(() -> first.await(Duration.ofMinutes(10)));
					await().atMost(Duration.ofSeconds(30)).until(() -> blockedClients(factory) == 1);
					container.start();
					await().atMost(Duration.ofSeconds(30)).until(() -> blockedClients(factory) == 2);
					// due at once; its wake-up goes to the first waiter: only a reserve that runs
					// takes it
					id = queues.enqueue("stopping", "late", JobOptions.builder().delay(Duration.ofMillis(1)).build())
						.id();
					assertThat(taken.get(2, TimeUnit.MINUTES)).isTrue();
					Instant due = redisTime(factory).plusMillis(2);
					await().atMost(Duration.ofSeconds(30)).until(() -> redisTime(factory).isAfter(due));
					assertThat(handled.get()).as("no wake-up reached the container").isZero();
				}

				container.stop();

				assertThat(admin.job("stopping", id)).as("job %s", id).isPresent();
				JobInfo job = admin.job("stopping", id).orElseThrow();
				assertThat(job.state()).as("taken by the reserve behind the wait, then given back").isEqualTo(JobState.READY);
				assertThat(job.attempts()).isZero();
				assertThat(handled.get()).isZero();
			}
			finally {
				factory.destroy();
			}
		}
	}

	private static long blockedClients(LettuceConnectionFactory factory) {
		try (RedisConnection connection = factory.getConnection()) {
			return Long.parseLong(connection.serverCommands().info("clients").getProperty("blocked_clients"));
		}
	}

	private static Instant redisTime(LettuceConnectionFactory factory) {
		try (RedisConnection connection = factory.getConnection()) {
			return Instant.ofEpochMilli(connection.serverCommands().time());
		}
	}

}
