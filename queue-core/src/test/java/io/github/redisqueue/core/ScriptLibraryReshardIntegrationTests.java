package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.testing.redis.RedisClusterProcesses;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.lettuce.core.MigrateArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A queue's slot moved to a master that lacks the scripts' Functions library (a master added to
 * the cluster: Redis does not copy functions when it moves a slot) while the client's view of the
 * cluster still names the old master: the calls follow the MOVED redirection to a node the library
 * was not loaded on, and still get their work done; the library reaches the new master once the
 * client's view does.
 */
// on one server only: it starts and reshards a cluster of its own
@Tag("single-node")
class ScriptLibraryReshardIntegrationTests {

	private static final String QUEUE = "reshard";

	private static final String TAG = "{rq:" + QUEUE + "}";

	@Test
	void aQueueMovedToAMasterWithoutTheLibraryIsServedBeforeTheClientSeesTheMove() {
		try (RedisClusterProcesses cluster = RedisClusterProcesses.start()) {
			RedisServerProcess source = cluster.masterOf(TAG);
			RedisServerProcess target = cluster.masters().stream().filter((node) -> node != source).findFirst().orElseThrow();
			LettuceConnectionFactory factory = withoutRefreshOnRedirections(cluster);
			try {
				QueueTemplate queues = new QueueTemplate(factory);
				queues.enqueue(QUEUE, "a");
				queues.enqueue(QUEUE, "b");
				assertThat(functionsOn(target)).isZero();
				moveSlot(cluster, source, target);

				List<ReservedJob> jobs = queues.reserve(QUEUE, 1, Duration.ofMinutes(1));
				assertThat(jobs).hasSize(1);
				assertThat(queues.complete(QUEUE, jobs.get(0).ref())).isEqualTo(AckResult.OK);
				assertThat(new QueueAdmin(queues).counts(QUEUE).total("completed")).isEqualTo(1);
				assertThat(queues.context().executor().usesFunctions()).isTrue();
				// once the client sees the move, the library is loaded on the new master and called there
				await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
					new QueueAdmin(queues).counts(QUEUE);
					assertThat(functionsOn(target)).isOne();
				});
			}
			finally {
				factory.destroy();
			}
		}
	}

	/** A client that keeps its view of the cluster until told: a MOVED redirection is followed, not learnt. */
	private static LettuceConnectionFactory withoutRefreshOnRedirections(RedisClusterProcesses cluster) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(5))
			.clientOptions(ClusterClientOptions.builder()
				.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().disableAllAdaptiveRefreshTriggers().build())
				.build())
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(cluster.seeds()),
				client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/** Moves the queue's slot and its keys from {@code source} to {@code target}, as a resharding does. */
	private static void moveSlot(RedisClusterProcesses cluster, RedisServerProcess source, RedisServerProcess target) {
		RedisClient client = RedisClient.create();
		try (StatefulRedisConnection<String, String> from = client.connect(uri(source));
				StatefulRedisConnection<String, String> to = client.connect(uri(target))) {
			RedisCommands<String, String> src = from.sync();
			RedisCommands<String, String> dst = to.sync();
			int slot = (int) (long) src.clusterKeyslot(TAG);
			String sourceId = src.clusterMyId();
			String targetId = dst.clusterMyId();
			dst.clusterSetSlotImporting(slot, sourceId);
			src.clusterSetSlotMigrating(slot, targetId);
			List<String> keys = src.clusterGetKeysInSlot(slot, 1000);
			assertThat(keys).isNotEmpty();
			src.migrate(target.host(), target.port(), 0, 5000, MigrateArgs.Builder.keys(keys));
			for (RedisServerProcess master : cluster.masters()) {
				try (StatefulRedisConnection<String, String> node = client.connect(uri(master))) {
					node.sync().clusterSetSlotNode(slot, targetId);
				}
			}
		}
		finally {
			client.shutdown();
		}
	}

	private static io.lettuce.core.RedisURI uri(RedisServerProcess node) {
		return io.lettuce.core.RedisURI.create(node.host(), node.port());
	}

	/** The libraries loaded on a node. */
	private static int functionsOn(RedisServerProcess node) {
		RedisClient client = RedisClient.create();
		try (StatefulRedisConnection<String, String> connection = client.connect(uri(node))) {
			return connection.sync().functionList().size();
		}
		finally {
			client.shutdown();
		}
	}

}
