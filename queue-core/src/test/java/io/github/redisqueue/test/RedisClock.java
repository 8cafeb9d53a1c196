package io.github.redisqueue.test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.awaitility.Awaitility.await;

/**
 * The Redis server clock, which decides leases, delays, expiries and heartbeats: tests wait on
 * it instead of sleeping on the JVM clock.
 */
public final class RedisClock {

	private RedisClock() {
	}

	/**
	 * The server time ({@code TIME}).
	 * @param redis a template on the server
	 * @return the server time, millisecond precision
	 */
	public static Instant now(StringRedisTemplate redis) {
		Long millis = redis.execute(
				(RedisCallback<Long>) (connection) -> connection.serverCommands().time(TimeUnit.MILLISECONDS));
		return Instant.ofEpochMilli(millis);
	}

	/**
	 * Wait (at most 30 s) until the server clock is strictly past {@code time}.
	 * @param redis a template on the server
	 * @param time the instant to pass
	 */
	public static void awaitPast(StringRedisTemplate redis, Instant time) {
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> now(redis).isAfter(time));
	}

	/**
	 * Wait until the server clock is strictly past its current time plus {@code duration}.
	 * @param redis a template on the server
	 * @param duration how long
	 */
	public static void awaitElapsed(StringRedisTemplate redis, Duration duration) {
		awaitPast(redis, now(redis).plus(duration));
	}

}
