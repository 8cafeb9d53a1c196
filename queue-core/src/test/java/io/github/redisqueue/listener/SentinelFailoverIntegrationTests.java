package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.Set;

import io.github.redisqueue.testing.redis.RedisSentinelProcesses;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Sentinel failover in the middle of a drain (see {@link FailoverDrain}): the master is
 * SIGKILLed, the sentinels promote the replica, the old master is started again and made a
 * replica by the sentinels.
 */
// on one server only: it starts and kills a Sentinel set of its own
@Tag("single-node")
class SentinelFailoverIntegrationTests {

	@ParameterizedTest(name = "durable enqueue replicas = {0}")
	@ValueSource(ints = { 0, 1 })
	void aMasterKilledMidDrainIsReplacedAndTheDrainGoesOn(int replicas) {
		try (RedisSentinelProcesses sentinels = RedisSentinelProcesses.start()) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisSentinelConfiguration(sentinels.masterName(), Set.copyOf(sentinels.sentinelNodes())));
			factory.setTimeout(Duration.ofSeconds(2).toMillis());
			factory.afterPropertiesSet();
			factory.start();
			try {
				FailoverDrain.run("sentinel", factory, replicas, () -> sentinels.master().kill(),
						() -> sentinels.currentMasterPort() == sentinels.replica().port(), () -> sentinels.master().restart());
			}
			finally {
				factory.destroy();
			}
		}
	}

}
