package io.github.redisqueue.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.lettuce.core.FlushMode;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scripts' Functions library survives {@code FUNCTION FLUSH}, and scripts run by SHA a flushed
 * script cache (as after a restart without persistence, or a failover): each is loaded again where
 * Redis lost it.
 */
class ScriptCacheIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void scriptFlushBetweenCallsBreaksNothing() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.defaults(), new QueueScripts(false));
		long calls = commandCalls("fcall");
		workloadFlushingBetweenCalls(queues, "flush", this::flushScripts);
		assertThat(commandCalls("fcall")).isEqualTo(calls);
	}

	@Test
	void functionFlushBetweenCallsBreaksNothing() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		long loads = commandCalls("function|load");
		long scripts = commandCalls("evalsha") + commandCalls("eval");
		workloadFlushingBetweenCalls(queues, "flush-functions", this::flushFunctions);
		// loaded again after each flush but the last (the workload's last call comes before it)
		assertThat(commandCalls("function|load") - loads).isGreaterThanOrEqualTo(5);
		assertThat(commandCalls("evalsha") + commandCalls("eval")).isEqualTo(scripts);
	}

	private void workloadFlushingBetweenCalls(QueueTemplate queues, String queue, Runnable flush) {
		QueueAdmin admin = new QueueAdmin(queues);
		queues.preloadScripts();
		queues.enqueue(queue, "a");
		flush.run();
		ReservedJob job = queues.reserve(queue, 1, Duration.ofMinutes(1)).get(0);
		flush.run();
		assertThat(queues.extend(queue, job.ref(), Duration.ofMinutes(2)).extended()).isTrue();
		flush.run();
		assertThat(queues.complete(queue, job.ref())).isEqualTo(AckResult.OK);
		flush.run();
		assertThat(admin.counts(queue).total("completed")).isEqualTo(1);
		flush.run();
		assertThat(admin.reapOnce(queue)).isEqualTo(ReapResult.NONE);
		flush.run();
	}

	private void flushScripts() {
		this.redis.execute((RedisCallback<Void>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
	}

	/** {@code FUNCTION FLUSH}, on every master of a cluster. */
	private void flushFunctions() {
		this.redis.execute((RedisCallback<Object>) (connection) -> {
			Object commands = connection.getNativeConnection();
			try {
				if (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
					for (RedisClusterNode node : cluster.getStatefulConnection().getPartitions()) {
						if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
							cluster.getConnection(node.getNodeId()).functionFlush(FlushMode.SYNC).get(10, TimeUnit.SECONDS);
						}
					}
				}
				else {
					((RedisClusterAsyncCommands<?, ?>) commands).functionFlush(FlushMode.SYNC).get(10, TimeUnit.SECONDS);
				}
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
			return null;
		});
	}

}
