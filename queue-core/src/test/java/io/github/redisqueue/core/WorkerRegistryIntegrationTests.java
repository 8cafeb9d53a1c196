package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.listener.WorkerHeartbeat;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

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
		queues.heartbeat(new WorkerInfo("w1", "host-a", List.of("emails", "sms"), 3, null, null), Duration.ofMillis(400));

		assertThat(queues.workers()).singleElement().satisfies((worker) -> {
			assertThat(worker.id()).isEqualTo("w1");
			assertThat(worker.host()).isEqualTo("host-a");
			assertThat(worker.queues()).containsExactly("emails", "sms");
			assertThat(worker.runningJobs()).isEqualTo(3);
			assertThat(worker.lastSeen()).isNotNull();
		});
		await().atMost(Duration.ofSeconds(5)).until(() -> queues.workers().isEmpty());
	}

	@Test
	void heartbeatSenderKeepsTheWorkerAliveAndRemovesItOnStop() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		WorkerHeartbeat heartbeat = new WorkerHeartbeat(queues, "w2", () -> List.of("emails"), () -> 1,
				Duration.ofMillis(100), Duration.ofMillis(300));
		heartbeat.start();
		try {
			await().atMost(Duration.ofSeconds(5)).until(() -> queues.workers().size() == 1);
			await().pollDelay(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2)).until(() -> true);
			assertThat(queues.workers()).extracting(WorkerInfo::id).containsExactly("w2");
		}
		finally {
			heartbeat.stop();
		}
		await().atMost(Duration.ofSeconds(2)).until(() -> queues.workers().isEmpty());
	}

	@Test
	void countsOfManyQueuesComeInOneRoundTripEvenAfterAScriptFlush() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueueAll("a", List.of(1, 2, 3), JobOptions.defaults());
		queues.enqueue("b", 1, JobOptions.builder().delay(Duration.ofHours(1)).build());
		this.redis.execute((RedisCallback<Void>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});

		Map<String, QueueCounts> counts = queues.counts(List.of("a", "b", "empty"));

		assertThat(counts).containsOnlyKeys("a", "b", "empty");
		assertThat(counts.get("a").ready()).isEqualTo(3);
		assertThat(counts.get("b").delayed()).isEqualTo(1);
		assertThat(counts.get("empty").pending()).isZero();
	}

}
