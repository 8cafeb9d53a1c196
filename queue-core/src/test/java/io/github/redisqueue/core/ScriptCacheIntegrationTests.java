package io.github.redisqueue.core;

import java.time.Duration;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scripts run by SHA survive a flushed script cache (as after a restart or failover).
 */
class ScriptCacheIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void scriptFlushBetweenCallsBreaksNothing() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.preloadScripts();
		queues.enqueue("flush", "a");
		flushScripts();
		ReservedJob job = queues.reserve("flush", 1, Duration.ofMinutes(1)).get(0);
		flushScripts();
		assertThat(queues.extend("flush", job.ref(), Duration.ofMinutes(2)).extended()).isTrue();
		flushScripts();
		assertThat(queues.complete("flush", job.ref())).isEqualTo(AckResult.OK);
		flushScripts();
		assertThat(admin.counts("flush").total("completed")).isEqualTo(1);
		flushScripts();
		assertThat(admin.reapOnce("flush")).isEqualTo(ReapResult.NONE);
	}

	private void flushScripts() {
		this.redis.execute((RedisCallback<Void>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
	}

}
