package io.github.redisqueue.core;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * A queue's rate limit: at most {@code permits} jobs of the queue are handed out in any
 * {@code window} by the Redis server clock, across every consumer (every container of every
 * JVM, and pull reserves through a template configured with the same limit). The reserve script
 * keeps the hand-out times of the last {@code permits} hand-outs and allows a hand-out only when
 * the one {@code permits} hand-outs before it is at least {@code window} old: a sliding window,
 * exact to the millisecond, with no burst beyond {@code permits}. Written {@code permits/window},
 * as in {@code 100/1s} or {@code 1000/1m}.
 *
 * @param permits the most hand-outs in any window, from 1 to {@value #MAX_PERMITS}
 * @param window the length of the window, from 1 ms to 1 day
 * @since 0.1.0
 */
public record RateLimit(int permits, Duration window) {

	/** Most hand-outs one window may allow (the script keeps one 13-byte time per permit). */
	public static final int MAX_PERMITS = 10_000;

	/** Longest window. */
	public static final Duration MAX_WINDOW = Duration.ofDays(1);

	private static final Pattern TEXT = Pattern.compile("([0-9]{1,9})/([0-9]{1,9})(ms|s|m|h|d)");

	/**
	 * @param permits the most hand-outs in any window, from 1 to {@value #MAX_PERMITS}
	 * @param window the length of the window, from 1 ms to 1 day, whole milliseconds
	 * @throws IllegalArgumentException if a value is out of range
	 */
	public RateLimit {
		if (permits < 1 || permits > MAX_PERMITS) {
			throw new IllegalArgumentException(
					"Rate limit permits " + permits + " are out of range: they must be from 1 to " + MAX_PERMITS);
		}
		if (window == null || window.compareTo(Duration.ofMillis(1)) < 0 || window.compareTo(MAX_WINDOW) > 0
				|| window.toNanos() % 1_000_000 != 0) {
			throw new IllegalArgumentException("Rate limit window " + window
					+ " is out of range: it must be whole milliseconds from 1ms to 1d");
		}
	}

	/**
	 * Reads a limit written {@code permits/window}, the window a whole number followed by
	 * {@code ms}, {@code s}, {@code m}, {@code h} or {@code d}, nothing else (no spaces, no
	 * decimals): {@code 100/1s}, {@code 1000/1m}, {@code 5/250ms}.
	 * @param text the limit
	 * @return the limit
	 * @throws IllegalArgumentException if the text is not such a limit or a value is out of range
	 */
	public static RateLimit parse(@Nullable String text) {
		Matcher m = (text != null) ? TEXT.matcher(text) : null;
		if (m == null || !m.matches()) {
			throw new IllegalArgumentException("Rate limit '" + text
					+ "' is invalid: it must be <permits>/<window>, the window a whole number and a unit ms, s, m, "
					+ "h or d, for example 100/1s or 1000/1m");
		}
		long amount = Long.parseLong(m.group(2));
		Duration window = switch (m.group(3)) {
			case "ms" -> Duration.ofMillis(amount);
			case "s" -> Duration.ofSeconds(amount);
			case "m" -> Duration.ofMinutes(amount);
			case "h" -> Duration.ofHours(amount);
			default -> Duration.ofDays(amount);
		};
		return new RateLimit(Integer.parseInt(m.group(1)), window);
	}

	/**
	 * The argument of the reserve script: {@code permits:window in ms}.
	 * @return the argument
	 */
	public String scriptArgument() {
		return this.permits + ":" + this.window.toMillis();
	}

	/**
	 * The limit as {@link #parse} reads it, in the largest unit that keeps it whole.
	 * @return for example {@code 100/1s}
	 */
	@Override
	public String toString() {
		long ms = this.window.toMillis();
		if (ms % 86_400_000 == 0) {
			return this.permits + "/" + (ms / 86_400_000) + "d";
		}
		if (ms % 3_600_000 == 0) {
			return this.permits + "/" + (ms / 3_600_000) + "h";
		}
		if (ms % 60_000 == 0) {
			return this.permits + "/" + (ms / 60_000) + "m";
		}
		if (ms % 1000 == 0) {
			return this.permits + "/" + (ms / 1000) + "s";
		}
		return this.permits + "/" + ms + "ms";
	}

}
