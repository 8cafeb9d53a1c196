package io.github.redisqueue.core;

import java.time.Duration;

/**
 * Told by {@link QueueTemplate} how many jobs of a queue met each {@link JobOutcome}, as the
 * scripts report it; the basis of outcome counters. Called on the thread that made the Redis
 * call, so implementations must be fast and thread safe.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface JobEvents {

	/** Events that go nowhere. */
	JobEvents NONE = (queue, outcome, count) -> {
	};

	/**
	 * @param queue the queue name
	 * @param outcome what happened
	 * @param count to how many jobs (at least 1)
	 */
	void record(String queue, JobOutcome outcome, long count);

	/**
	 * A job was reserved after waiting ready this long: since its enqueue, its due time (delayed
	 * or backing off) or its return to ready (released, reclaimed), whichever came last, by the
	 * Redis server clock inside the reserve script.
	 * @param queue the queue name
	 * @param wait the time it waited
	 */
	default void waited(String queue, Duration wait) {
	}

	/**
	 * A reserve call of this process handed out fewer jobs than it asked for, or none, because
	 * the queue's rate limit allowed no more in its window while more jobs were ready (see
	 * {@link RateLimit}).
	 * @param queue the queue name
	 */
	default void rateLimited(String queue) {
	}

	/**
	 * A listener container's fetch loop started on the queue; counters of its fetch failures may
	 * start at zero here, so that the first failure is an increase.
	 * @param queue the queue name
	 */
	default void fetchStarted(String queue) {
	}

	/**
	 * A fetch loop's call to Redis failed.
	 * @param queue the queue name
	 * @param stopped {@code true} when the failure ended the loop (it takes no new jobs until its
	 * container is restarted), {@code false} when the loop tries again after its poll interval
	 */
	default void fetchFailed(String queue, boolean stopped) {
	}

}
