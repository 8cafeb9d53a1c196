package io.github.redisqueue.schedule;

import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.scheduling.support.CronExpression;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The latest tick before an instant, found backwards, is the one a forward walk finds.
 */
class CronTicksTests {

	@Test
	void previousTickIsTheLastOfAForwardWalk() {
		ZoneId paris = ZoneId.of("Europe/Paris");
		Instant start = Instant.parse("2026-03-28T22:00:00Z");
		for (String expression : List.of("* * * * * *", "*/7 * * * * *", "0 */5 * * * *", "0 30 2 * * *",
				"15 0 8 * * MON-FRI", "0 0 0 29 2 *")) {
			CronTicks ticks = new CronTicks(CronExpression.parse(expression), paris);
			for (long offset = 0; offset < 3 * 86400; offset += 7919) {
				Instant at = start.plusSeconds(offset).plusMillis(offset % 1000);
				Instant expected = walk(ticks, at);
				assertThat(ticks.previous(at)).as("%s before %s", expression, at).isEqualTo(expected);
			}
		}
	}

	@Test
	void latestAtOrBeforeIncludesTheInstantItself() {
		CronTicks ticks = new CronTicks(CronExpression.parse("0 * * * * *"), ZoneId.of("UTC"));
		Instant tick = Instant.parse("2026-01-01T10:00:00Z");
		assertThat(ticks.latestAtOrBefore(tick)).isEqualTo(tick);
		assertThat(ticks.latestAtOrBefore(tick.plusMillis(999))).isEqualTo(tick);
		assertThat(ticks.latestAtOrBefore(tick.minusMillis(1))).isEqualTo(tick.minusSeconds(60));
		assertThat(ticks.next(tick)).isEqualTo(tick.plusSeconds(60));
	}

	/** The latest tick before {@code at}, walking forward from far enough back (null: none in 5 years). */
	private static Instant walk(CronTicks ticks, Instant at) {
		Instant from = at.minus(CronTicks.HORIZON);
		Instant last = null;
		Instant next = ticks.next(from.minusNanos(1));
		// forward walks are long for dense expressions: start near the instant when a tick is close
		for (long back : new long[] { 10, 3600, 86400 * 3, 86400 * 800, CronTicks.HORIZON.getSeconds() }) {
			Instant candidate = ticks.next(at.minusSeconds(back).minusNanos(1));
			if (candidate != null && candidate.isBefore(at)) {
				next = candidate;
				break;
			}
		}
		while (next != null && next.isBefore(at)) {
			last = next;
			next = ticks.next(next);
		}
		return last;
	}

	// S6: a daily tick at a wall-clock time that a DST change skips or repeats, as the scheduler computes it
	@Test
	void aDailyTickInTheHourOfADaylightSavingChangeIsSkippedInSpringAndTwiceInAutumn() {
		ZoneId paris = ZoneId.of("Europe/Paris");
		CronTicks ticks = new CronTicks(CronExpression.parse("0 30 2 * * *"), paris);

		assertThat(ticksBetween(ticks, "2026-03-28T00:00:00Z", "2026-03-31T00:00:00Z")).containsExactly(
				Instant.parse("2026-03-28T01:30:00Z"), Instant.parse("2026-03-30T00:30:00Z"));
		assertThat(ticksBetween(ticks, "2026-10-24T00:00:00Z", "2026-10-27T00:00:00Z")).containsExactly(
				Instant.parse("2026-10-24T00:30:00Z"), Instant.parse("2026-10-25T00:30:00Z"),
				Instant.parse("2026-10-25T01:30:00Z"), Instant.parse("2026-10-26T01:30:00Z"));
		// the backward search agrees with the forward walk on the repeated hour
		assertThat(ticks.latestAtOrBefore(Instant.parse("2026-10-25T01:45:00Z")))
			.isEqualTo(Instant.parse("2026-10-25T01:30:00Z"));
		assertThat(ticks.previous(Instant.parse("2026-10-25T01:30:00Z"))).isEqualTo(Instant.parse("2026-10-25T00:30:00Z"));
	}

	private static List<Instant> ticksBetween(CronTicks ticks, String from, String to) {
		List<Instant> found = new ArrayList<>();
		Instant end = Instant.parse(to);
		for (Instant tick = ticks.next(Instant.parse(from)); tick != null && tick.isBefore(end); tick = ticks.next(tick)) {
			found.add(tick);
		}
		return found;
	}

}
