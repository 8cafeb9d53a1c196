package io.github.redisqueue.samples.quickstart;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every metric and label that the Grafana dashboard and the alert rules read is in the quick
 * start's {@code /actuator/prometheus} once it ran jobs: sent ones, a dead-lettered one, and
 * enough under a rate limit for the limit to cut reserves short.
 */
class MonitoringScrapeIntegrationTests {

	private final SampleHttp http = new SampleHttp();

	@Test
	void theDashboardAndTheAlertsReadOnlyMetricsAndLabelsTheApplicationExports() throws Exception {
		RedisEndpoint redis = TestRedis.shared();
		TestRedis.flushAll(redis);
		try (ConfigurableApplicationContext context = QuickstartApplicationIntegrationTests.run(redis.port(),
				"--sample.embedded-redis=false", "--queue.listener.backoff.initial=20ms",
				"--queue.queues.emails.max-attempts=1", "--queue.queues.emails.rate-limit=10/1s",
				"--queue.metrics.refresh-interval=200ms")) {
			String base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
			assertThat(this.http.post(base + "/emails/bulk?count=30", "").statusCode()).isEqualTo(202);
			this.http.post(base + "/emails", "{\"to\":\"bob@example.com\",\"subject\":\"please fail\"}");
			EmailSender sender = context.getBean(EmailSender.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> sender.sent() == 30);
			// the gauges are read from Redis every refresh interval: wait for one that saw the dead letter
			await().atMost(Duration.ofSeconds(30))
				.until(() -> this.http.get(base + "/actuator/prometheus")
					.matches("(?s).*queue_jobs\\{[^}]*state=\"dead\"[^}]*} 1\\.0.*"));

			String text = this.http.get(base + "/actuator/prometheus");
			Scrape scrape = new Scrape(text);
			assertThat(scrape.metrics()).contains("queue_rate_limited_total", "queue_workers",
					"queue_fetch_failures_total", "queue_listener_seconds_bucket", "queue_job_wait_seconds_bucket");

			List<MonitoringFiles.Query> queries = new ArrayList<>(MonitoringFiles.dashboardQueries());
			queries.addAll(MonitoringFiles.ruleQueries());
			assertThat(queries).hasSizeGreaterThan(20);
			assertThat(scrape.missing(queries)).as("what the dashboard and the alert rules read that the scrape "
					+ "lacks; the scrape has %s", scrape.metrics()).isEmpty();
		}
	}

}
