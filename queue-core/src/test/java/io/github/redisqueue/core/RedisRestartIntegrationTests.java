package io.github.redisqueue.core;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Acknowledged enqueues survive a Redis crash (with an append-only file), and the same client
 * recovers once Redis is back, without a JVM restart.
 */
// on one server only: it kills and restarts a server of its own
@Tag("single-node")
class RedisRestartIntegrationTests {

	@Test
	void acknowledgedEnqueuesSurviveKillMinusNineAndTheSameClientRecovers() throws Exception {
		try (RedisServerProcess server = TestRedis.startPrivate("--appendonly", "yes", "--appendfsync", "always")) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			try {
				QueueTemplate queues = new QueueTemplate(factory);
				QueueAdmin admin = new QueueAdmin(queues);
				List<EnqueueResult> enqueued = queues.enqueueAll("durable",
						IntStream.range(0, 500).boxed().toList(), JobOptions.defaults());
				ReservedJob held = queues.reserve("durable", 1, Duration.ofMillis(500)).get(0);
				long pid = server.pid();

				server.kill();
				assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
				server.restart();

				QueueCounts counts = await().atMost(Duration.ofSeconds(30))
					.ignoreExceptions()
					.until(() -> admin.counts("durable"), (c) -> c != null);
				assertThat(counts.ready() + counts.inFlight()).isEqualTo(500);

				// the held lease runs out after the restart and the job comes back: nothing is lost
				Set<String> drained = new HashSet<>();
				await().atMost(Duration.ofSeconds(30)).until(() -> {
					for (ReservedJob job : queues.reserve("durable", 100, Duration.ofMinutes(1))) {
						assertThat(queues.complete("durable", job.ref())).isEqualTo(AckResult.OK);
						drained.add(job.id());
					}
					return drained.size() == 500;
				});
				assertThat(drained).contains(held.id());
				assertThat(drained).containsAll(enqueued.stream().map(EnqueueResult::id).toList());
				assertThat(queues.enqueue("durable", "after restart").duplicate()).isFalse();
			}
			finally {
				factory.destroy();
			}
		}
	}

}
