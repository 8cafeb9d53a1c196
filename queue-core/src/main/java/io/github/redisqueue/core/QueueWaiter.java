package io.github.redisqueue.core;

import java.time.Duration;

/**
 * Blocks a fetch loop until a job of one queue may be ready: an enqueue, a retry, a released or
 * reclaimed lease, or a resume ends the wait at once. For a queue of one partition the wait is
 * one blocking {@code BLMOVE} on a connection of its own; for a partitioned queue it is one wait
 * for the announcements its partitions publish, received on the template's single subscription.
 * Either way an idle fetch loop sends one command per wait or none.
 *
 * @since 0.1.0
 */
public interface QueueWaiter extends AutoCloseable {

	/**
	 * Wait for a wake-up.
	 * @param timeout the longest wait (at least one millisecond is waited)
	 * @return whether a wake-up arrived before the timeout
	 */
	boolean await(Duration timeout);

	/**
	 * Whether a wake-up can be missed, so that a fetch loop must reserve after every wait, woken
	 * or not: true for the waiter of a partitioned queue, whose announcements are not kept for a
	 * subscription that was not there (being made, or being made again after its connection
	 * broke).
	 * @return whether wake-ups can be missed
	 */
	default boolean mayMissWakeups() {
		return false;
	}

	/**
	 * End a wait in progress without closing the waiter, so that the wait's reply, and the reply
	 * of a call sent behind it, still arrive; a wait sent after this one may block for its
	 * timeout.
	 * @return whether it did; if not, {@link #close()} ends a wait
	 */
	default boolean endWait() {
		return false;
	}

	/** Stop waiting: a wait in progress ends, and the waiter's connection or subscription is released. */
	@Override
	void close();

}
