package io.github.redisqueue.core;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What Redis answered to a recurring job's tick: the server time, the outcome, and the jobs the
 * call enqueued, by tick.
 *
 * @param serverTime the Redis clock when the call ran
 * @param outcome what happened to the tick
 * @param jobs the ids of the jobs enqueued, by their tick (empty when none)
 * @since 0.1.0
 */
public record ScheduleFiring(Instant serverTime, Outcome outcome, Map<Instant, String> jobs) {

	/** What happened to a tick. */
	public enum Outcome {

		/** This call enqueued the tick's job (and maybe one for the latest missed tick). */
		FIRED,

		/** The tick was handled already, by this instance or another: nothing enqueued. */
		HANDLED,

		/** The tick was late and the policy (or a schedule without history) fired nothing. */
		LATE

	}

	/** The state of a schedule in Redis, as read without changing it. */
	public record State(Instant serverTime, @Nullable Instant lastTick) {
	}

}
