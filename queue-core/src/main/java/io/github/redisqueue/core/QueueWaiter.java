package io.github.redisqueue.core;

import java.time.Duration;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisListCommands.Direction;

/**
 * Blocks a fetch loop on Redis until a job of one queue may be ready: an enqueue, a retry, a
 * released or reclaimed lease, or a resume pushes a wake-up that ends the wait at once. The
 * wait is one blocking {@code BLMOVE} on a connection of its own, so an idle fetch loop sends one
 * command per wait and nothing else.
 *
 * @since 0.1.0
 */
public final class QueueWaiter implements AutoCloseable {

	private final RedisConnection connection;

	private final QueueKeys keys;

	QueueWaiter(RedisConnectionFactory connectionFactory, QueueKeys keys) {
		this.connection = connectionFactory.getConnection();
		this.keys = keys;
	}

	/**
	 * Wait for a wake-up.
	 * @param timeout the longest wait (at least one millisecond is waited)
	 * @return whether a wake-up arrived before the timeout
	 */
	public boolean await(Duration timeout) {
		double seconds = Math.max(1, timeout.toMillis()) / 1000.0;
		return this.connection.listCommands()
			.bLMove(this.keys.wake(), this.keys.woken(), Direction.LEFT, Direction.RIGHT, seconds) != null;
	}

	@Override
	public void close() {
		this.connection.close();
	}

}
