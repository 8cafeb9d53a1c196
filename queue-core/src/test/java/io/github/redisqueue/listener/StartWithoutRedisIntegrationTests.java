package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker application that starts while Redis is down starts: the container's take-back of
 * its own leases is the fetch loop's first step, retried like any Redis failure, and work
 * begins when Redis comes up.
 */
// on one server only: it starts and stops a server of its own
@Tag("single-node")
class StartWithoutRedisIntegrationTests {

	@Test
	void containerStartedWhileRedisIsDownStartsAndWorksOnceRedisIsUp() {
		try (RedisServerProcess server = TestRedis.startPrivate("--appendonly", "yes", "--appendfsync", "always")) {
			// a previous run of the same container reserved a job and died holding it
			String heldId;
			String leftId;
			LettuceConnectionFactory before = TestRedis.connectionFactory(server.endpoint());
			try {
				QueueTemplate queues = new QueueTemplate(before);
				heldId = queues.enqueue("early", "held").id();
				leftId = queues.enqueue("early", "left").id();
				String identity = queues.getSettings().workerId() + "#early";
				assertThat(queues.reserveBatch("early", 1, Duration.ofHours(1), identity).jobs()).hasSize(1);
			}
			finally {
				before.destroy();
			}
			server.stop();

			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			QueueTemplate queues = new QueueTemplate(factory);
			QueueAdmin admin = new QueueAdmin(queues);
			Map<String, Integer> handled = new ConcurrentHashMap<>();
			QueueListenerContainer container = new QueueListenerContainer("early", "early", queues,
					(job, ack) -> handled.merge(job.id(), 1, Integer::sum),
					ListenerTestSupport.fast(ContainerOptions.defaults()), null, null);
			try {
				container.start();

				assertThat(container.isRunning()).isTrue();
				assertThat(container.getFailure()).isNull();
				// Redis stays away for a while: the container keeps trying, it does not give up
				await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(30))
					.until(() -> container.getFailure() == null);

				server.start();

				// the job its identity held is taken back first, then both run
				await().atMost(Duration.ofSeconds(15)).until(() -> handled.size() == 2);
				assertThat(handled).containsOnlyKeys(heldId, leftId).containsValues(1);
				await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("early").total("completed") == 2);
				assertThat(container.getFailure()).isNull();
			}
			finally {
				container.stop();
				factory.destroy();
			}
		}
	}

}
