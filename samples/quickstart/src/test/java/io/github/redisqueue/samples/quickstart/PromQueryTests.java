package io.github.redisqueue.samples.quickstart;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The PromQL reading that the dashboard and alert checks rely on: metric names apart from
 * functions and keywords, the labels of selectors and clauses; and a scrape check that reports
 * a misspelt metric, label or value.
 */
class PromQueryTests {

	private static final String SCRAPE = """
			# HELP queue_jobs Jobs of the queue in the state
			# TYPE queue_jobs gauge
			queue_jobs{application="quickstart",queue="emails",state="ready"} 3.0
			queue_jobs{application="quickstart",queue="emails",state="dead"} 1.0
			queue_job_wait_seconds_bucket{queue="emails",le="0.001"} 2
			queue_up 1
			""";

	@Test
	void metricsAreTheIdentifiersThatAreNeitherCalledNorKeywords() {
		PromQuery query = PromQuery.parse("histogram_quantile(0.95, sum by (queue, le) "
				+ "(rate(queue_job_wait_seconds_bucket{queue=~\"$queue\"}[$__rate_interval]))) "
				+ "/ on (queue) group_left max without (state) (queue_jobs offset 5m) > bool 0 "
				+ "and on(queue) queue_up unless max by (queue) ({__name__=\"queue_paused\", queue!=\"x\"})");
		assertThat(query.metrics()).containsExactlyInAnyOrder("queue_job_wait_seconds_bucket", "queue_jobs",
				"queue_up", "queue_paused");
		assertThat(query.groupingLabels()).containsExactlyInAnyOrder("queue", "le", "state");
		assertThat(query.matchers()).extracting(PromQuery.Matchers::metric)
			.containsExactly("queue_job_wait_seconds_bucket", "queue_paused");
		assertThat(query.matchers().get(1).labels()).containsOnlyKeys("queue");
	}

	@Test
	void equalityMatchersKeepTheirValue() {
		PromQuery query = PromQuery.parse("max by (queue) (queue_jobs{state=\"ready\", queue=~\"a|b\"})");
		Map<String, String> labels = query.matchers().get(0).labels();
		assertThat(labels).containsEntry("state", "ready").containsKey("queue");
		assertThat(labels.get("queue")).isNull();
	}

	@Test
	void theScrapeCheckReportsWhatIsMissing() {
		Scrape scrape = new Scrape(SCRAPE);
		assertThat(scrape.missing(List.of(query("max by (queue, state) (queue_jobs{queue=~\"$queue\"})", "{{queue}} {{state}}"),
				query("histogram_quantile(0.5, sum by (le) (rate(queue_job_wait_seconds_bucket[5m])))", ""),
				query("max by (instance) (queue_up) > 0", "")))).isEmpty();

		assertThat(scrape.missing(List.of(query("max by (queue) (queue_jbos{state=\"ready\"})", ""))))
			.containsExactly("test: metric queue_jbos is not in the scrape",
					"test: metric queue_jbos has no label state", "test: label queue is on none of [queue_jbos]");
		assertThat(scrape.missing(List.of(query("queue_jobs{stat=\"ready\"}", ""))))
			.containsExactly("test: metric queue_jobs has no label stat");
		assertThat(scrape.missing(List.of(query("queue_jobs{state=\"in-flight\"}", ""))))
			.containsExactly("test: metric queue_jobs has no series with state=\"in-flight\"");
		assertThat(scrape.missing(List.of(query("sum by (listener) (queue_jobs)", "{{worker}}"))))
			.containsExactly("test: label listener is on none of [queue_jobs]",
					"test: label worker is on none of [queue_jobs]");
		assertThat(scrape.missing(List.of(query("vector(1)", ""))))
			.containsExactly("test: no metric found in vector(1)");
	}

	private static MonitoringFiles.Query query(String expr, String legend) {
		return new MonitoringFiles.Query("test", expr, legend);
	}

}
