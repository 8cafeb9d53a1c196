package io.github.redisqueue.core.wakeup;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redisqueue.core.QueueWaiter;
import io.github.redisqueue.core.script.QueueKeys;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.data.redis.listener.Topic;

/**
 * The waits of fetch loops of partitioned queues. A partition's scripts announce that a job may be
 * ready by publishing on the partition's channel (once until the partition's next reserve); the
 * template subscribes on one connection, started with the first waiter, and each waiter listens to
 * the channels of its queue's partitions. A blocking command could not wait on keys of several
 * masters of a cluster at once; a subscription hears every master. Opening a waiter waits (at
 * most {@link #SUBSCRIBE_WAIT}) until Redis confirmed the subscription of each of its channels, so
 * that the reserve a fetch loop makes after opening it covers everything announced before. An
 * announcement missed all the same (the confirmation did not come in time, or the subscription was
 * lost with its connection) costs at most the fetch loop's poll interval, after which it reserves
 * anyway.
 */
public final class QueueWakeups {

	private static final Logger logger = LoggerFactory.getLogger(QueueWakeups.class);

	private final RedisConnectionFactory connectionFactory;

	/** The longest wait for Redis to confirm the subscription of a new waiter's channels. */
	public static final Duration SUBSCRIBE_WAIT = Duration.ofSeconds(2);

	private @Nullable RedisMessageListenerContainer listeners;

	// channels whose subscription Redis confirmed (and did not end since)
	private final Set<String> subscribed = ConcurrentHashMap.newKeySet();

	public QueueWakeups(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/** A waiter for the announcements of the given partitions. */
	public QueueWaiter open(QueueKeys[] parts) {
		List<Topic> topics = new ArrayList<>(parts.length);
		for (QueueKeys k : parts) {
			topics.add(new ChannelTopic(new String(k.wakeChannel(), StandardCharsets.UTF_8)));
		}
		Waiter waiter = new Waiter();
		container().addMessageListener(waiter, topics);
		waiter.awaitSubscribed(topics);
		return waiter;
	}

	private synchronized RedisMessageListenerContainer container() {
		if (this.listeners == null) {
			this.listeners = startListeners(this.connectionFactory, "redis-queue-wakeups");
		}
		return this.listeners;
	}

	/** A started listener container of the library's own, on daemon threads of the given name. */
	public static RedisMessageListenerContainer startListeners(RedisConnectionFactory connectionFactory, String threadName) {
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
	public synchronized void stop() {
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
	private final class Waiter implements QueueWaiter, MessageListener, SubscriptionListener {

		private boolean announced;

		private boolean closed;

		@Override
		public synchronized void onMessage(Message message, byte @Nullable [] pattern) {
			this.announced = true;
			notifyAll();
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			QueueWakeups.this.subscribed.add(new String(channel, StandardCharsets.UTF_8));
			synchronized (this) {
				notifyAll();
			}
		}

		@Override
		public void onChannelUnsubscribed(byte[] channel, long count) {
			QueueWakeups.this.subscribed.remove(new String(channel, StandardCharsets.UTF_8));
		}

		private boolean allSubscribed(List<Topic> topics) {
			for (Topic topic : topics) {
				if (!QueueWakeups.this.subscribed.contains(topic.getTopic())) {
					return false;
				}
			}
			return true;
		}

		/** Wait, at most {@link #SUBSCRIBE_WAIT}, until every channel of the topics is subscribed. */
		synchronized void awaitSubscribed(List<Topic> topics) {
			long deadline = System.nanoTime() + SUBSCRIBE_WAIT.toNanos();
			try {
				long left;
				while (!this.closed && !allSubscribed(topics) && (left = deadline - System.nanoTime()) > 0) {
					wait(Math.max(1, left / 1_000_000L));
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
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
