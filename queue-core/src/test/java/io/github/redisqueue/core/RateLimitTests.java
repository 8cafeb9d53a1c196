package io.github.redisqueue.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A rate limit is read strictly from {@code permits/window}, written back the same way, and a
 * partitioned queue cannot have one.
 */
class RateLimitTests {

	@Test
	void readsPermitsAndAWindowInEachUnit() {
		assertThat(RateLimit.parse("100/1s")).isEqualTo(new RateLimit(100, Duration.ofSeconds(1)));
		assertThat(RateLimit.parse("1000/1m")).isEqualTo(new RateLimit(1000, Duration.ofMinutes(1)));
		assertThat(RateLimit.parse("5/250ms")).isEqualTo(new RateLimit(5, Duration.ofMillis(250)));
		assertThat(RateLimit.parse("3/2h")).isEqualTo(new RateLimit(3, Duration.ofHours(2)));
		assertThat(RateLimit.parse("10000/1d")).isEqualTo(new RateLimit(10_000, Duration.ofDays(1)));
		assertThat(RateLimit.parse("1/1ms")).isEqualTo(new RateLimit(1, Duration.ofMillis(1)));
	}

	@Test
	void writesItselfInTheLargestWholeUnit() {
		assertThat(RateLimit.parse("100/1000ms")).hasToString("100/1s");
		assertThat(RateLimit.parse("1000/60s")).hasToString("1000/1m");
		assertThat(RateLimit.parse("5/1500ms")).hasToString("5/1500ms");
		assertThat(RateLimit.parse("7/24h")).hasToString("7/1d");
		assertThat(RateLimit.parse("100/1s").scriptArgument()).isEqualTo("100:1000");
		assertThat(RateLimit.parse("1000/1m").scriptArgument()).isEqualTo("1000:60000");
	}

	@Test
	void refusesAnythingElse() {
		for (String text : new String[] { "", "100", "100/", "/1s", "100/s", "100/1", "100 /1s", " 100/1s", "100/1s ",
				"1.5/1s", "100/1.5s", "-1/1s", "100/-1s", "100/1S", "100/1sec", "100/1w", "1e3/1s", "100per1s",
				"0/1s", "10001/1s", "5/0ms", "5/0s", "5/25h", "5/2d", "9999999999/1s", "5/9999999999s" }) {
			assertThatIllegalArgumentException().as(text).isThrownBy(() -> RateLimit.parse(text));
		}
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse(null));
		assertThatIllegalArgumentException().isThrownBy(() -> new RateLimit(5, Duration.ofNanos(1_500_000)));
	}

	@Test
	void aPartitionedQueueCannotHaveOne() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QueueSettings.builder().partitions("q", 2).rateLimit("q", RateLimit.parse("5/1s")).build())
			.withMessageContaining("'q'")
			.withMessageContaining("partitions");
		QueueSettings settings = QueueSettings.builder().partitions("q", 1).rateLimit("q", RateLimit.parse("5/1s"))
			.build();
		assertThat(settings.rateLimit("q")).isEqualTo(RateLimit.parse("5/1s"));
		assertThat(settings.toBuilder().rateLimit("q", null).build().rateLimit("q")).isNull();
	}

}
