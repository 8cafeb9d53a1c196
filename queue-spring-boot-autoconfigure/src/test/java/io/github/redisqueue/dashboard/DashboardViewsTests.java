package io.github.redisqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.github.redisqueue.core.QueueHistory;
import io.github.redisqueue.dashboard.DashboardViews.Chart;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The dashboard's chart sums a queue's minutes into steps without losing or moving a count, and
 * durations read as an operator writes them.
 */
class DashboardViewsTests {

	@Test
	void chartSumsMinutesIntoStepsOldestFirst() {
		List<Long> completed = new ArrayList<>(Collections.nCopies(QueueHistory.MINUTES, 0L));
		List<Long> failed = new ArrayList<>(Collections.nCopies(QueueHistory.MINUTES, 0L));
		completed.set(0, 4L);
		completed.set(9, 1L);
		completed.set(10, 2L);
		completed.set(QueueHistory.MINUTES - 1, 7L);
		failed.set(QueueHistory.MINUTES - 2, 3L);
		Instant start = Instant.ofEpochMilli(1_700_000_000_000L / 60_000 * 60_000);
		QueueHistory history = new QueueHistory("q", start, start.plus(Duration.ofHours(24)).minusSeconds(30), completed,
				failed);

		Chart minutes = Chart.of(history, 1);
		assertThat(minutes.completed()).hasSize(1440);
		assertThat(minutes.completed()[1439]).isEqualTo(7);
		assertThat(minutes.stepMillis()).isEqualTo(60_000);

		Chart tens = Chart.of(history, 10);
		assertThat(tens.completed()).hasSize(144);
		assertThat(tens.completed()[0]).isEqualTo(5);
		assertThat(tens.completed()[1]).isEqualTo(2);
		assertThat(tens.completed()[143]).isEqualTo(7);
		assertThat(tens.failed()[143]).isEqualTo(3);
		assertThat(tens.start()).isEqualTo(start.toEpochMilli());
		assertThat(tens.stepMillis()).isEqualTo(600_000);
		assertThatIllegalArgumentException().isThrownBy(() -> Chart.of(history, 7));
	}

	@Test
	void durationsReadAsWritten() {
		assertThat(DashboardViews.duration(Duration.ofDays(7))).isEqualTo("7d");
		assertThat(DashboardViews.duration(Duration.ofHours(1))).isEqualTo("1h");
		assertThat(DashboardViews.duration(Duration.ofMinutes(90))).isEqualTo("1h 30min");
		assertThat(DashboardViews.duration(Duration.ofMinutes(5))).isEqualTo("5min");
		assertThat(DashboardViews.duration(Duration.ofSeconds(45))).isEqualTo("45s");
		assertThat(DashboardViews.duration(Duration.ofMillis(1500))).isEqualTo("1500ms");
	}

}
