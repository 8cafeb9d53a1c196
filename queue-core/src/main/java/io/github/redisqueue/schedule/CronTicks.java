package io.github.redisqueue.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;

/**
 * The ticks of a cron expression in a time zone, as instants: the next tick after an instant,
 * and the latest tick before one ({@link CronExpression} only looks forward, so the latest tick is
 * found by widening a window backwards until it holds a tick, then by bisection).
 */
final class CronTicks {

	/** How far back a previous tick is looked for (beyond, a schedule has no previous tick). */
	static final Duration HORIZON = Duration.ofDays(5 * 366);

	private final CronExpression cron;

	private final ZoneId zone;

	CronTicks(CronExpression cron, ZoneId zone) {
		this.cron = cron;
		this.zone = zone;
	}

	/** The first tick strictly after {@code instant}, or {@code null} if the expression has none. */
	@Nullable Instant next(Instant instant) {
		ZonedDateTime next = this.cron.next(ZonedDateTime.ofInstant(instant, this.zone));
		return (next != null) ? next.toInstant() : null;
	}

	/** The latest tick at or before {@code instant}, or {@code null} if there is none within the horizon. */
	@Nullable Instant latestAtOrBefore(Instant instant) {
		return previous(instant.plusNanos(1));
	}

	/** The latest tick strictly before {@code instant}, or {@code null} if there is none within the horizon. */
	@Nullable Instant previous(Instant instant) {
		Duration window = Duration.ofSeconds(1);
		Instant low = null;
		while (low == null) {
			if (window.compareTo(HORIZON) > 0) {
				return null;
			}
			Instant first = atOrAfter(instant.minus(window));
			if (first != null && first.isBefore(instant)) {
				low = first;
			}
			window = window.multipliedBy(2);
		}
		// low is a tick before instant, and no tick lies in [high, instant)
		Instant high = instant;
		while (true) {
			Instant next = next(low);
			if (next == null || !next.isBefore(high)) {
				return low;
			}
			Instant mid = next.plus(Duration.between(next, high).dividedBy(2));
			Instant found = atOrAfter(mid);
			if (found != null && found.isBefore(high)) {
				low = found;
			}
			else {
				low = next;
				high = mid;
			}
		}
	}

	private @Nullable Instant atOrAfter(Instant instant) {
		return next(instant.minusNanos(1));
	}

}
