package io.github.redisqueue.core.wakeup;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redisqueue.core.QueueWaiter;
import io.github.redisqueue.core.script.QueueKeys;
import io.lettuce.core.UnblockType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisListCommands.Direction;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;

/**
 * The waiter of a queue of one partition: one blocking {@code BLMOVE} from the queue's list of
 * wake-ups, on a connection of its own, so that each wake-up ends one consumer's wait. With
 * Lettuce on a server that is not a cluster, that connection also carries a call sent right
 * behind the wait (see {@link #connection()}).
 */
public final class ListWaiter implements QueueWaiter {

	private final RedisConnectionFactory connectionFactory;

	private final RedisConnection connection;

	// the Redis client id of that connection, once known (see endWait); -1 until then
	private volatile long clientId = -1;

	private final QueueKeys keys;

	// the connection's own Lettuce connection, once asked for; null until then or where there is none
	private @Nullable RedisClusterAsyncCommands<byte[], byte[]> own;

	public ListWaiter(RedisConnectionFactory connectionFactory, QueueKeys keys) {
		this.connectionFactory = connectionFactory;
		this.connection = connectionFactory.getConnection();
		this.keys = keys;
		try {
			// opened now, not by the first wait: completions sent in front of a wait do not wait for it
			connection();
		}
		catch (RuntimeException ex) {
			this.connection.close();
			throw ex;
		}
	}

	@Override
	public boolean await(Duration timeout) {
		double seconds = Math.max(1, timeout.toMillis()) / 1000.0;
		return this.connection.listCommands()
			.bLMove(this.keys.wake(), this.keys.woken(), Direction.LEFT, Direction.RIGHT, seconds) != null;
	}

	/**
	 * The waiter's own Lettuce connection (not the one Spring Data Redis shares between callers),
	 * on which a wait can be followed by another command that Redis runs as soon as the wait ends.
	 * @return its asynchronous commands; {@code null} with another driver or a Redis Cluster
	 */
	@SuppressWarnings("unchecked")
	public @Nullable RedisClusterAsyncCommands<byte[], byte[]> connection() {
		if (this.own == null && this.connection instanceof LettuceConnection lettuce
				&& !(this.connection instanceof RedisClusterConnection)) {
			// while pipelining, a Lettuce connection hands out its dedicated connection, the one its
			// blocking commands use, instead of the shared one
			lettuce.openPipeline();
			try {
				this.own = (RedisClusterAsyncCommands<byte[], byte[]>) lettuce.getNativeConnection();
			}
			finally {
				lettuce.closePipeline();
			}
			this.clientId = (this.own != null) ? clientId(this.own) : -1;
		}
		return this.own;
	}

	private long clientId(RedisClusterAsyncCommands<byte[], byte[]> commands) {
		try {
			Long id = commands.clientId().get(10, TimeUnit.SECONDS);
			return (id != null) ? id : -1;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return -1;
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			// no id (CLIENT refused to this user, ...): a stop closes the connection instead
			return -1;
		}
	}

	/**
	 * Ends the wait of this waiter's own connection with {@code CLIENT UNBLOCK}, sent on another
	 * connection, so that a call sent behind the wait runs and its reply still arrives.
	 * @return whether it ended a wait; {@code false} when the connection was not blocked then, or
	 * Redis refused the command: close the waiter instead
	 */
	@Override
	public boolean endWait() {
		long id = this.clientId;
		if (id < 0) {
			return false;
		}
		try (RedisConnection other = this.connectionFactory.getConnection()) {
			// by Lettuce's own command: Spring Data Redis reads the reply of a CLIENT command as a status
			// and fails on this one's integer (after Redis ran it)
			if (!(other.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> commands)) {
				return false;
			}
			// 1 when it was blocked and is no longer; 0 when it was not blocked (its wait not sent yet,
			// or over) or is another client now (the connection was reconnected): closed instead
			Long unblocked = commands.clientUnblock(id, UnblockType.TIMEOUT).get(10, TimeUnit.SECONDS);
			return unblocked != null && unblocked == 1;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			return false;
		}
	}

	/** The queue's keys: its wake-ups are {@link QueueKeys#wake()}, moved to {@link QueueKeys#woken()}. */
	public QueueKeys keys() {
		return this.keys;
	}

	@Override
	public void close() {
		this.connection.close();
	}

}
