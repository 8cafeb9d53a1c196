package io.github.redisqueue.core.wakeup;

import java.time.Duration;

import io.github.redisqueue.core.QueueWaiter;
import io.github.redisqueue.core.script.QueueKeys;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisListCommands.Direction;

/**
 * The waiter of a queue of one partition: one blocking {@code BLMOVE} from the queue's list of
 * wake-ups, on a connection of its own, so that each wake-up ends one consumer's wait.
 */
public final class ListWaiter implements QueueWaiter {

	private final RedisConnection connection;

	private final QueueKeys keys;

	public ListWaiter(RedisConnectionFactory connectionFactory, QueueKeys keys) {
		this.connection = connectionFactory.getConnection();
		this.keys = keys;
	}

	@Override
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
