package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.data.redis.listener.Topic;

/**
 * The waits of fetch loops of partitioned queues. A partition's scripts announce that a job may be
 * ready by publishing on the partition's channel (once until the partition's next reserve); the
 * template subscribes on one connection, started with the first waiter, and each waiter listens to
 * the channels of its queue's partitions. A blocking command could not wait on keys of several
 * masters of a cluster at once; a subscription hears every master. An announcement missed (the
 * subscription was not yet made, or was lost with its connection) costs at most the fetch loop's
 * poll interval, after which it reserves anyway.
 */
final class QueueWakeups {

	private static final Logger logger = LoggerFactory.getLogger(QueueWakeups.class);

	private final RedisConnectionFactory connectionFactory;

	private @Nullable RedisMessageListenerContainer listeners;

	QueueWakeups(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/** A waiter for the announcements of the given partitions. */
	QueueWaiter open(QueueKeys[] parts) {
		List<Topic> topics = new ArrayList<>(parts.length);
		for (QueueKeys k : parts) {
			topics.add(new ChannelTopic(new String(k.wakeChannel(), StandardCharsets.UTF_8)));
		}
		Waiter waiter = new Waiter();
		container().addMessageListener(waiter, topics);
		return waiter;
	}

	private synchronized RedisMessageListenerContainer container() {
		if (this.listeners == null) {
			this.listeners = startListeners(this.connectionFactory, "redis-queue-wakeups");
		}
		return this.listeners;
	}

	/** A started listener container of the library's own, on daemon threads of the given name. */
	static RedisMessageListenerContainer startListeners(RedisConnectionFactory connectionFactory, String threadName) {
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(connectionFactory);
		container.setTaskExecutor((task) -> {
			Thread thread = new Thread(task, threadName);
			thread.setDaemon(true);
			thread.start();
		});
		container.afterPropertiesSet();
		container.start();
		return container;
	}

	private synchronized void remove(Waiter waiter) {
		if (this.listeners != null) {
			try {
				this.listeners.removeMessageListener(waiter);
			}
			catch (RuntimeException ex) {
				logger.debug("Removing a wake-up listener failed", ex);
			}
		}
	}

	/** Stop the subscription; waiters still open wait out their timeouts. */
	synchronized void stop() {
		if (this.listeners != null) {
			try {
				this.listeners.destroy();
			}
			catch (Exception ex) {
				logger.debug("Stopping the wake-up subscription failed", ex);
			}
			this.listeners = null;
		}
	}

	/** One fetch loop's wait: ends at the first announcement heard since the last wait. */
	private final class Waiter implements QueueWaiter, MessageListener {

		private boolean announced;

		private boolean closed;

		@Override
		public synchronized void onMessage(Message message, byte @Nullable [] pattern) {
			this.announced = true;
			notifyAll();
		}

		@Override
		public synchronized boolean await(Duration timeout) {
			long deadline = System.nanoTime() + Math.max(1, timeout.toMillis()) * 1_000_000L;
			try {
				long left;
				while (!this.announced && !this.closed && (left = deadline - System.nanoTime()) > 0) {
					wait(left / 1_000_000L, (int) (left % 1_000_000L));
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			boolean woken = this.announced;
			this.announced = false;
			return woken;
		}

		@Override
		public boolean mayMissWakeups() {
			return true;
		}

		@Override
		public void close() {
			synchronized (this) {
				this.closed = true;
				notifyAll();
			}
			remove(this);
		}

	}

}
