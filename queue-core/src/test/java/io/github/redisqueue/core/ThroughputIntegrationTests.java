package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The throughput of a queue counts completions of about the last minute, from every consumer,
 * however they were acknowledged, and forgets older ones.
 */
class ThroughputIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void throughputIsCompletionsOfTheLastMinutePerSecond() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		assertThat(admin.counts("tp").throughput()).isZero();
		queues.enqueueAll("tp", IntStream.range(0, 40).boxed().toList(), JobOptions.defaults());

		// 20 acknowledged one call each, 20 carried by the next reserve call
		List<ReservedJob> first = queues.reserve("tp", 20, Duration.ofMinutes(1));
		first.forEach((job) -> queues.complete("tp", job.ref()));
		List<JobRef> second = queues.reserve("tp", 20, Duration.ofMinutes(1)).stream().map(ReservedJob::ref).toList();
		queues.reserveBatch("tp", 1, Duration.ofMinutes(1), "worker", second);

		// 40 completions over a window of 50 to 60 seconds
		assertThat(admin.counts("tp").throughput()).isBetween(40 / 60.0, 40 / 50.0);
		assertThat(admin.counts("tp").total("completed")).isEqualTo(40);
		assertThat(admin.counts("tp").totals()).doesNotContainKeys("~b0", "~n0");
	}

	@Test
	void completionsOlderThanTheWindowAreForgotten() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		long bucket = serverMillis() / 10_000;
		String stats = queues.keys("old").key("stats");
		// every slot holds a bucket from two minutes ago with many completions
		for (int slot = 0; slot < 7; slot++) {
			long old = bucket - 12 - slot;
			this.redis.opsForHash().put(stats, "~b" + (old % 7), Long.toString(old));
			this.redis.opsForHash().put(stats, "~n" + (old % 7), "1000");
		}
		assertThat(admin.counts("old").throughput()).isZero();

		queues.enqueue("old", "x");
		queues.complete("old", queues.reserve("old", 1, Duration.ofMinutes(1)).get(0).ref());
		assertThat(admin.counts("old").throughput()).isCloseTo(1 / 55.0, within(0.003));
	}

	private long serverMillis() {
		Long time = this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands()
			.time(TimeUnit.MILLISECONDS));
		return (time != null) ? time : 0;
	}

}
