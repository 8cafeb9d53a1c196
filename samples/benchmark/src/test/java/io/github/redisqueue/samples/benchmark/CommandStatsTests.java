package io.github.redisqueue.samples.benchmark;

import java.nio.charset.StandardCharsets;

import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Round trips are what the client sent, whatever the scripts run inside Redis: a command a
 * script calls counts as executed, not as a round trip, even when clients send the same command.
 */
class CommandStatsTests {

	@Test
	void commandsInsideScriptsAreExecutedButNotSent() throws Exception {
		try (RedisUnderTest redis = RedisUnderTest.start(TestRedis.shared().uri())) {
			CommandStats before = CommandStats.of(redis.info("commandstats"), redis.sent());
			try (RedisConnection connection = redis.connectionFactory().getConnection()) {
				connection.scriptingCommands()
					.eval("redis.call('SADD', KEYS[1], 'a'); redis.call('SADD', KEYS[1], 'b'); return 1"
						.getBytes(StandardCharsets.UTF_8), ReturnType.INTEGER, 1, bytes("bench:stats:set"));
				connection.setCommands().sAdd(bytes("bench:stats:set"), bytes("c"));
			}
			CommandStats.Delta delta = CommandStats.of(redis.info("commandstats"), redis.sent()).since(before);

			assertThat(delta.scripts()).isEqualTo(1);
			assertThat(delta.clientCommands()).isEqualTo(1);
			assertThat(delta.roundTrips()).isEqualTo(2);
			assertThat(delta.executed()).isEqualTo(4);
		}
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
