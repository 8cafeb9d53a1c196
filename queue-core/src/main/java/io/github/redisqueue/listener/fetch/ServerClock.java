package io.github.redisqueue.listener.fetch;

import java.time.Duration;
import java.time.Instant;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

/**
 * The Redis server's clock as a fetch loop sees it: the server time of the last reply plus the
 * time elapsed since on this JVM's monotonic clock. Due times come from the server, so they are
 * compared with this, never with the JVM's wall clock (which may be ahead or behind).
 */
final class ServerClock {

	private final LongSupplier nanoTime;

	private @Nullable Instant serverTime;

	private long atNanos;

	ServerClock() {
		this(System::nanoTime);
	}

	ServerClock(LongSupplier nanoTime) {
		this.nanoTime = nanoTime;
	}

	/**
	 * Record the server time a reply carried, as of now.
	 * @param serverTime the Redis clock when the call ran
	 */
	void update(Instant serverTime) {
		this.serverTime = serverTime;
		this.atNanos = this.nanoTime.getAsLong();
	}

	/** The server's time now; the JVM's clock until a reply told the server's. */
	Instant now() {
		Instant base = this.serverTime;
		return (base != null) ? base.plusNanos(this.nanoTime.getAsLong() - this.atNanos) : Instant.now();
	}

	/** Whether a due time (server clock) has come. */
	boolean isDue(@Nullable Instant due) {
		return due != null && !now().isBefore(due);
	}

	/**
	 * How long to wait: the poll interval, or less when a due time comes before its end (one
	 * millisecond past it, at least one millisecond).
	 * @param pollInterval the longest wait
	 * @param due the next due time (server clock), if any
	 * @return the wait
	 */
	Duration waitTime(Duration pollInterval, @Nullable Instant due) {
		Duration wait = pollInterval;
		if (due != null) {
			Duration untilDue = Duration.between(now(), due).plusMillis(1);
			if (untilDue.compareTo(wait) < 0) {
				wait = (untilDue.isNegative() || untilDue.isZero()) ? Duration.ofMillis(1) : untilDue;
			}
		}
		return wait;
	}

}
