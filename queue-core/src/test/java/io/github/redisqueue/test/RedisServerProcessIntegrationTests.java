package io.github.redisqueue.test;

import java.net.InetAddress;
import java.net.ServerSocket;

import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test support's own Redis servers: a cluster node whose bus port (its port + 10,000) another
 * process took after the port was chosen still starts, on other ports, instead of failing the
 * test that asked for it.
 */
class RedisServerProcessIntegrationTests {

	@Test
	void aClusterNodeWhoseBusPortWasTakenStartsOnOtherPorts() throws Exception {
		RedisServerProcess node = new RedisServerProcess(TestRedis.serverBinary(), "--cluster-enabled", "yes",
				"--cluster-config-file", "nodes.conf");
		int chosen = node.port();
		try (ServerSocket taken = new ServerSocket(chosen + 10000, 1, InetAddress.getByName("127.0.0.1"))) {
			node.start();

			assertThat(node.port()).isNotEqualTo(chosen);
			LettuceConnectionFactory factory = new LettuceConnectionFactory(node.host(), node.port());
			factory.afterPropertiesSet();
			try {
				assertThat(new StringRedisTemplate(factory).execute((RedisCallback<String>) (connection) -> connection.ping()))
					.isEqualTo("PONG");
			}
			finally {
				factory.destroy();
			}
		}
		finally {
			node.close();
		}
	}

}
