package io.github.redisqueue.samples.benchmark;

import java.nio.charset.StandardCharsets;
import java.util.Map;

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

	@Test
	void redisTimeCountsAScriptWholeAndNotItsCommandsAgain() {
		// a script call of 30 us that ran three SADD, and one SADD a client sent itself
		CommandStats before = new CommandStats(Map.of(), Map.of(), 0, 0, Map.of());
		CommandStats after = new CommandStats(Map.of("evalsha", 1L, "sadd", 4L), Map.of("evalsha", 30L, "sadd", 12L), 1,
				1, Map.of("evalsha", 1L, "sadd", 1L));

		CommandStats.Delta delta = after.since(before);

		assertThat(delta.executed()).isEqualTo(5);
		// the script's 30 us, and the client's share of SADD's time: 12 us x 1/4
		assertThat(delta.redisMicros()).isEqualTo(33.0);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
