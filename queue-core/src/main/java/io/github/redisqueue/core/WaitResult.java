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
 */
public record WaitResult(boolean woken, @Nullable Reservation reservation) {
}
