package io.github.redisqueue.listener;

import java.io.IOException;
import java.time.Duration;

import io.github.redisqueue.testing.redis.RedisClusterProcesses;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.RespClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Redis Cluster failover in the middle of a drain (see {@link FailoverDrain}): the master of
 * the queue's slot is SIGKILLed, its replica takes over, the old master is started again and
 * rejoins as a replica. The client refreshes its view of the cluster on the errors a failover
 * brings and every second (Spring Boot: {@code spring.data.redis.lettuce.cluster.refresh.adaptive}
 * and {@code .period}).
 */
// on one server only: it starts and kills a cluster of its own
@Tag("single-node")
class ClusterFailoverIntegrationTests {

	@ParameterizedTest(name = "durable enqueue replicas = {0}")
	@ValueSource(ints = { 0, 1 })
	void theMasterOfTheQueueKilledMidDrainIsReplacedAndTheDrainGoesOn(int replicas) {
		try (RedisClusterProcesses cluster = RedisClusterProcesses.start()) {
			RedisServerProcess master = cluster.masterOf("{rq:failover}:ready");
			RedisServerProcess replica = cluster.replicaOf(master);
			LettuceConnectionFactory factory = followingFailovers(cluster);
			try {
				FailoverDrain.run("cluster", factory, replicas, master::kill, () -> isMaster(replica), master::restart);
			}
			finally {
				factory.destroy();
			}
		}
	}

	/**
	 * A started connection factory on the cluster whose client refreshes its view of the cluster
	 * on the errors a failover brings and every second.
	 */
	static LettuceConnectionFactory followingFailovers(RedisClusterProcesses cluster) {
		return followingFailovers(cluster, false);
	}

	/**
	 * Like {@link #followingFailovers(RedisClusterProcesses)}; with {@code rejectWhileDisconnected},
	 * a command for a node the client is not connected to fails at once instead of waiting for
	 * the connection or the command timeout.
	 */
	static LettuceConnectionFactory followingFailovers(RedisClusterProcesses cluster, boolean rejectWhileDisconnected) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(2))
			.clientOptions(ClusterClientOptions.builder()
				.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
					.enableAllAdaptiveRefreshTriggers()
					.enablePeriodicRefresh(Duration.ofSeconds(1))
					.build())
				.disconnectedBehavior(rejectWhileDisconnected ? ClientOptions.DisconnectedBehavior.REJECT_COMMANDS
						: ClientOptions.DisconnectedBehavior.DEFAULT)
				.build())
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(cluster.seeds()),
				client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	static boolean isMaster(RedisServerProcess node) {
		try {
			return RespClient.call(node.host(), node.port(), "INFO", "replication").contains("role:master");
		}
		catch (IOException ex) {
			return false;
		}
	}

}
