package io.github.redisqueue.core;

import org.jspecify.annotations.Nullable;

/**
 * What a wait with a reserve sent right behind it found (see
 * {@link QueueTemplate#reserveAfterWait}).
 *
 * @param woken whether the wait took a wake-up before its timeout
 * @param reservation what the reserve behind it took; {@code null} when it did not run (it runs
 * only after a wake-up unless asked for either way, and another consumer may have taken that
 * wake-up first)
 * @param handedOff how many of its jobs, the first ones in order, were handed off as soon as the reply arrived (to
 * the hand-off that one form of {@link QueueTemplate#reserveAfterWait} takes); 0 when none was
 */
public record WaitResult(boolean woken, @Nullable Reservation reservation, int handedOff) {

	/**
	 * A result none of whose jobs was handed off early.
	 * @param woken whether the wait took a wake-up before its timeout
	 * @param reservation what the reserve behind it took, {@code null} when it did not run
	 */
	public WaitResult(boolean woken, @Nullable Reservation reservation) {
		this(woken, reservation, 0);
	}

}
