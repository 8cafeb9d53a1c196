package io.github.redisqueue.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Where a queue stands against its rate limit, by the Redis server clock, summed over its
 * partitions.
 *
 * @param queue the queue name
 * @param limit the limit this application's settings give the queue, or {@code null} for none
 * @param serverTime the Redis clock when read
 * @param handedOut hand-outs within the last window (0 without a limit)
 * @param nextHandOut when the limit allows the next hand-out, when it allows none now; else
 * {@code null}
 * @param limitedCalls reserve calls the limit cut short while jobs were ready, since the queue's
 * counters began
 * @param heldBack ready jobs those calls asked for and did not get, summed
 * @since 0.1.0
 */
public record RateLimitStatus(String queue, @Nullable RateLimit limit, Instant serverTime, int handedOut,
		@Nullable Instant nextHandOut, long limitedCalls, long heldBack) {
}
