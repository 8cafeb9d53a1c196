package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.redisqueue.listener.WorkerHeartbeat;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The worker registry (live workers by heartbeat) and counts of many queues in one round trip.
 */
class WorkerRegistryIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void heartbeatListsTheWorkerUntilItsTimeToLiveRunsOut() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		admin.heartbeat(new WorkerInfo("w1", "host-a", List.of("emails", "sms"), 3, null, null), Duration.ofSeconds(2));

		assertThat(admin.workers()).singleElement().satisfies((worker) -> {
			assertThat(worker.id()).isEqualTo("w1");
			assertThat(worker.host()).isEqualTo("host-a");
			assertThat(worker.queues()).containsExactly("emails", "sms");
			assertThat(worker.runningJobs()).isEqualTo(3);
			assertThat(worker.lastSeen()).isNotNull();
		});
		await().atMost(Duration.ofSeconds(30)).until(() -> admin.workers().isEmpty());
	}

	@Test
	void heartbeatSenderKeepsTheWorkerAliveAndRemovesItOnStop() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		WorkerHeartbeat heartbeat = new WorkerHeartbeat(admin, "w2", () -> List.of("emails"), () -> 1,
				Duration.ofMillis(100), Duration.ofSeconds(2));
		heartbeat.start();
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> admin.workers().size() == 1);
			// listed throughout one and a half times its time to live (heartbeats every 100 ms: a
			// loaded machine may delay some, not twenty in a row)
			await().during(Duration.ofSeconds(3))
				.atMost(Duration.ofSeconds(30))
				.until(() -> admin.workers().stream().map(WorkerInfo::id).toList().equals(List.of("w2")));
		}
		finally {
			heartbeat.stop();
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> admin.workers().isEmpty());
	}

	@Test
	void aHeartbeatInterruptedByTheStopLogsNoWarning() {
		ListAppender<ILoggingEvent> logs = new ListAppender<>();
		Logger logger = (Logger) LoggerFactory.getLogger(WorkerHeartbeat.class);
		Level level = logger.getLevel();
		logs.start();
		logger.addAppender(logs);
		logger.setLevel(Level.DEBUG);
		// a server of its own, whose writes are paused while a heartbeat is on its way (through a
		// second client, as the heartbeat's connection waits)
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			LettuceConnectionFactory control = TestRedis.connectionFactory(server.endpoint());
			try {
				QueueAdmin admin = new QueueAdmin(new QueueTemplate(factory));
				WorkerHeartbeat heartbeat = new WorkerHeartbeat(admin, "w3", () -> List.of("emails"), () -> 0,
						Duration.ofMillis(100), Duration.ofSeconds(5));
				heartbeat.start();
				await().atMost(Duration.ofSeconds(30)).until(() -> admin.workers().size() == 1);
				control.getConnection().execute("CLIENT", "PAUSE".getBytes(), "30000".getBytes(),
						"WRITE".getBytes());
				await().atMost(Duration.ofSeconds(30)).until(() -> blockedClients(control) > 0);

				heartbeat.stop();

				// the interrupted beat has reported its end, at whatever level
				await().atMost(Duration.ofSeconds(30))
					.until(() -> logs.list.stream().anyMatch((event) -> event.getThrowableProxy() != null));
				control.getConnection().execute("CLIENT", "UNPAUSE".getBytes());
				assertThat(logs.list).noneMatch((event) -> event.getLevel().isGreaterOrEqual(Level.WARN));
			}
			finally {
				factory.destroy();
				control.destroy();
			}
		}
		finally {
			logger.detachAppender(logs);
			logger.setLevel(level);
		}
	}

	private static long blockedClients(LettuceConnectionFactory factory) {
		Properties clients = factory.getConnection().serverCommands().info("clients");
		return Long.parseLong(clients.getProperty("blocked_clients", "0"));
	}

	@Test
	void countsOfManyQueuesComeInOneRoundTripEvenAfterAScriptFlush() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("a", List.of(1, 2, 3), JobOptions.defaults());
		queues.enqueue("b", 1, JobOptions.builder().delay(Duration.ofHours(1)).build());
		this.redis.execute((RedisCallback<Void>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});

		Map<String, QueueCounts> counts = admin.counts(List.of("a", "b", "empty"));

		assertThat(counts).containsOnlyKeys("a", "b", "empty");
		assertThat(counts.get("a").ready()).isEqualTo(3);
		assertThat(counts.get("b").delayed()).isEqualTo(1);
		assertThat(counts.get("empty").pending()).isZero();
	}

	@Test
	void overviewReadsRegistryWorkersAndEveryQueueInOnePipelineAndNoOtherCommand() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			try {
				QueueTemplate queues = new QueueTemplate(factory);
				QueueAdmin admin = new QueueAdmin(queues);
				queues.enqueueAll("a", List.of(1, 2, 3), JobOptions.defaults());
				queues.enqueue("b", 1, JobOptions.builder().delay(Duration.ofHours(1)).build());
				queues.enqueue("c", 1);
				admin.heartbeat(new WorkerInfo("w1", "host-a", List.of("a"), 0, null, null), Duration.ofMinutes(1));

				QueueOverview first = admin.overview();
				assertThat(first.queues()).containsOnlyKeys("a", "b", "c");
				assertThat(first.queues().get("a").ready()).isEqualTo(3);
				assertThat(first.queues().get("b").delayed()).isEqualTo(1);
				assertThat(first.workers()).extracting(WorkerInfo::id).containsExactly("w1");

				TestRedis.resetCommandStats(server.endpoint());
				QueueOverview second = admin.overview();
				assertThat(second.queues()).containsOnlyKeys("a", "b", "c");
				Map<String, Long> stats = TestRedis.commandStats(server.endpoint());
				// the client sent one SMEMBERS, one EVALSHA (workers) and three FCALL (the queues) on the shared
				// connection (no new connection, so no HELLO); the rest are the scripts' own reads,
				// none of which walks jobs
				assertThat(stats).doesNotContainKeys("hello", "scan", "keys", "hscan", "sscan")
					.containsEntry("smembers", 1L)
					.containsEntry("evalsha", 1L)
					.containsEntry("fcall", 3L);

				queues.enqueue("d", 1);
				assertThat(admin.overview().queues()).containsOnlyKeys("a", "b", "c", "d");
			}
			finally {
				factory.destroy();
			}
		}
	}

}
