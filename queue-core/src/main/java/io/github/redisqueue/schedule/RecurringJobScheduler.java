package io.github.redisqueue.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.core.QueueSchedules;
import io.github.redisqueue.core.ScheduleFiring;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.support.converter.JobSerializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Fires the recurring jobs this instance has configured. One thread: for each schedule, when its
 * next tick has come by the Redis server clock, it reads the server time and the schedule's last
 * handled tick, and if the latest tick at or before the server time is not handled yet, asks Redis
 * to fire it ({@link QueueSchedules#fire}), which enqueues one job per tick whatever the number of
 * instances. The JVM's clock only measures how long to sleep until the next tick; a thread that
 * wakes early reads the server time again and sleeps on.
 *
 * @since 0.1.0
 */
public class RecurringJobScheduler implements SmartLifecycle {

	/** Wait before a tick is tried again after Redis failed. */
	static final Duration RETRY = Duration.ofMillis(250);

	/** Longest sleep: the server time is read at least this often. */
	static final Duration MAX_SLEEP = Duration.ofSeconds(30);

	private static final Logger logger = LoggerFactory.getLogger(RecurringJobScheduler.class);

	private final QueueSchedules schedules;

	private final JobSerializer serializer;

	private final List<Entry> entries = new CopyOnWriteArrayList<>();

	private final Map<String, Instant> nextTicks = new ConcurrentHashMap<>();

	private final Object monitor = new Object();

	private volatile @Nullable Thread thread;

	private volatile boolean running;

	/**
	 * A scheduler enqueuing with a template.
	 * @param template the template
	 */
	public RecurringJobScheduler(QueueTemplate template) {
		this.schedules = new QueueSchedules(template);
		this.serializer = template.getSerializer();
	}

	/** The serializer of payloads, for sources that produce objects. */
	public JobSerializer getSerializer() {
		return this.serializer;
	}

	/**
	 * Add a recurring job; before the scheduler starts.
	 * @param definition the recurring job
	 * @throws IllegalArgumentException when a schedule of the same name targets the same queue
	 * @throws IllegalStateException when the scheduler runs already
	 */
	public void register(RecurringJobDefinition definition) {
		if (this.running) {
			throw new IllegalStateException("Schedule '" + definition.name() + "' is registered after the scheduler started");
		}
		for (Entry entry : this.entries) {
			if (entry.definition.name().equals(definition.name()) && entry.definition.queue().equals(definition.queue())) {
				throw new IllegalArgumentException("Schedule '" + definition.name() + "' of queue '" + definition.queue()
						+ "' is declared twice");
			}
		}
		this.entries.add(new Entry(definition, new CronTicks(definition.cron(), definition.zone())));
	}

	/** The recurring jobs of this instance, in registration order. */
	public List<RecurringJobDefinition> getDefinitions() {
		List<RecurringJobDefinition> definitions = new ArrayList<>();
		this.entries.forEach((entry) -> definitions.add(entry.definition));
		return definitions;
	}

	/**
	 * The next tick of a recurring job after an instant.
	 * @param definition the recurring job
	 * @param after the instant
	 * @return its next tick, or {@code null} if it has none
	 */
	public static @Nullable Instant nextTick(RecurringJobDefinition definition, Instant after) {
		return new CronTicks(definition.cron(), definition.zone()).next(after);
	}

	/**
	 * The last tick a recurring job handled, and the Redis server time, as read now.
	 * @param definition the recurring job
	 * @return the state in Redis
	 */
	public ScheduleFiring.State state(RecurringJobDefinition definition) {
		return this.schedules.peek(definition.queue(), definition.name());
	}

	@Override
	public void start() {
		synchronized (this.monitor) {
			if (this.running) {
				return;
			}
			this.running = true;
			if (this.entries.isEmpty()) {
				return;
			}
			Thread worker = new Thread(this::run, "redis-queue-schedules");
			worker.setDaemon(true);
			this.thread = worker;
			worker.start();
		}
	}

	@Override
	public void stop() {
		Thread worker;
		synchronized (this.monitor) {
			this.running = false;
			worker = this.thread;
			this.thread = null;
			this.monitor.notifyAll();
		}
		if (worker != null) {
			worker.interrupt();
			try {
				worker.join(TimeUnit.SECONDS.toMillis(10));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	private void run() {
		while (this.running) {
			long sleepNanos = MAX_SLEEP.toNanos();
			for (Entry entry : this.entries) {
				if (!this.running) {
					return;
				}
				long wait = entry.dueInNanos();
				if (wait <= 0) {
					wait = tick(entry);
				}
				sleepNanos = Math.min(sleepNanos, wait);
			}
			synchronized (this.monitor) {
				if (!this.running) {
					return;
				}
				try {
					TimeUnit.NANOSECONDS.timedWait(this.monitor, Math.max(sleepNanos, TimeUnit.MILLISECONDS.toNanos(1)));
				}
				catch (InterruptedException ex) {
					if (!this.running) {
						return;
					}
				}
			}
		}
	}

	/** Looks at one schedule; returns the nanoseconds until it is due again. */
	private long tick(Entry entry) {
		RecurringJobDefinition definition = entry.definition;
		try {
			ScheduleFiring.State state = this.schedules.peek(definition.queue(), definition.name());
			Instant now = state.serverTime();
			Instant tick = entry.ticks.latestAtOrBefore(now);
			Instant last = state.lastTick();
			if (tick != null && (last == null || last.isBefore(tick))) {
				byte[] payload;
				try {
					payload = definition.payload().apply(tick);
				}
				catch (RuntimeException ex) {
					// this instance does not fire the tick; another may
					logger.error("Schedule '{}' of queue '{}' has no payload for tick {}", definition.name(),
							definition.queue(), tick, ex);
					return waitForNext(entry, now);
				}
				if (payload != null) {
					ScheduleFiring firing = this.schedules.fire(definition.queue(), definition.name(), tick,
							entry.ticks.previous(tick), definition.missed(), definition.grace(), payload);
					now = firing.serverTime();
					if (!firing.jobs().isEmpty()) {
						logger.debug("Schedule '{}' enqueued {} to queue '{}'", definition.name(), firing.jobs(),
								definition.queue());
					}
				}
				else {
					this.schedules.pass(definition.queue(), definition.name(), tick);
				}
			}
			entry.failures = 0;
			return waitForNext(entry, now);
		}
		catch (RuntimeException ex) {
			if (entry.failures++ == 0) {
				logger.warn("Schedule '{}' of queue '{}' could not fire; retrying every {} ms: {}", definition.name(),
						definition.queue(), RETRY.toMillis(), ex.toString());
			}
			entry.dueIn(RETRY);
			return RETRY.toNanos();
		}
	}

	/** Remembers the next tick after {@code now} (server clock); the nanoseconds until then. */
	private long waitForNext(Entry entry, Instant now) {
		Instant next = entry.ticks.next(now);
		if (next == null) {
			this.nextTicks.remove(entry.key());
			entry.dueIn(MAX_SLEEP);
			return MAX_SLEEP.toNanos();
		}
		this.nextTicks.put(entry.key(), next);
		// one millisecond past the tick, so that the server time has reached it when read
		Duration wait = Duration.between(now, next).plusMillis(1);
		if (wait.compareTo(MAX_SLEEP) > 0) {
			wait = MAX_SLEEP;
		}
		entry.dueIn(wait);
		return wait.toNanos();
	}

	/**
	 * The next tick of a recurring job as this scheduler last computed it (by the server clock).
	 * @param definition the recurring job
	 * @return its next tick, or {@code null} before the scheduler looked at it
	 */
	public @Nullable Instant getNextTick(RecurringJobDefinition definition) {
		return this.nextTicks.get(definition.queue() + "\u0000" + definition.name());
	}

	private static final class Entry {

		final RecurringJobDefinition definition;

		final CronTicks ticks;

		int failures;

		/** When to look again, on this JVM's monotonic clock (0: at once). */
		long dueNanos;

		Entry(RecurringJobDefinition definition, CronTicks ticks) {
			this.definition = definition;
			this.ticks = ticks;
		}

		String key() {
			return this.definition.queue() + "\u0000" + this.definition.name();
		}

		void dueIn(Duration wait) {
			this.dueNanos = System.nanoTime() + wait.toNanos();
		}

		long dueInNanos() {
			return (this.dueNanos == 0) ? 0 : this.dueNanos - System.nanoTime();
		}

	}

}
