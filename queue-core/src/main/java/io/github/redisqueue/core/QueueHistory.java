package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A queue's jobs completed and failed per minute over the last 24 hours, as the scripts count them
 * in Redis (so every instance reads the same): {@link #MINUTES} minutes, oldest first, the last
 * being the current minute of the Redis clock. A minute without activity counts 0; so does every
 * minute before the queue's first count.
 *
 * @param queue the queue name
 * @param start the start of the oldest minute (Redis clock)
 * @param serverTime the Redis clock when the history was read
 * @param completed jobs completed in each minute
 * @param failed in each minute, attempts that failed (retried or dead-lettered) and jobs
 * dead-lettered without a failed attempt (expired, lease lost too often, unreadable record)
 * @since 0.1.0
 */
public record QueueHistory(String queue, Instant start, Instant serverTime, List<Long> completed,
		List<Long> failed) {

	/** Minutes a history covers: 24 hours. */
	public static final int MINUTES = 1440;

	/** The length of each step of a history. */
	public static final Duration STEP = Duration.ofMinutes(1);

	/** The start of minute {@code index} (0 the oldest). */
	public Instant minute(int index) {
		return this.start.plus(STEP.multipliedBy(index));
	}

	/** Jobs completed over the whole history. */
	public long completedTotal() {
		return this.completed.stream().mapToLong(Long::longValue).sum();
	}

	/** Failures over the whole history. */
	public long failedTotal() {
		return this.failed.stream().mapToLong(Long::longValue).sum();
	}

}
