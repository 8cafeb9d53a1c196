package io.github.redisqueue.samples.quickstart;

import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The quick start as a user runs it: e-mails posted over HTTP are sent by the listener, failing
 * ones end in the dead letters, and with no Redis reachable the sample starts an embedded one.
 */
class QuickstartApplicationIntegrationTests {

	private final SampleHttp http = new SampleHttp();

	@Test
	void postedEmailsAreSentAndFailingOnesAreDeadLettered() throws Exception {
		RedisEndpoint redis = TestRedis.shared();
		TestRedis.flushAll(redis);
		try (ConfigurableApplicationContext context = run(redis.port(), "--sample.embedded-redis=false",
				"--queue.listener.backoff.initial=50ms")) {
			String base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
			HttpResponse<String> accepted = post(base + "/emails", "{\"to\":\"ada@example.com\",\"subject\":\"Hello\"}");
			assertThat(accepted.statusCode()).isEqualTo(202);
			assertThat(accepted.body()).contains("\"duplicate\":false");
			post(base + "/emails", "{\"to\":\"bob@example.com\",\"subject\":\"please fail\"}");

			EmailSender sender = context.getBean(EmailSender.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> sender.sent() == 1);
			await().atMost(Duration.ofSeconds(10)).until(() -> get(base + "/emails").contains("mail server refused"));
			assertThat(get(base + "/actuator/health")).contains("\"status\":\"UP\"");
			// one email completed within the last minute
			assertThat(get(base + "/actuator/queues")).containsPattern("\"throughputPerSecond\":0\\.0[1-2]");
			// the sample enables the dashboard: its page and its data
			assertThat(get(base + "/queues/")).contains("assets/app.js");
			assertThat(get(base + "/queues/api/overview")).contains("\"name\":\"emails\"");
		}
	}

	@Test
	void theDigestScheduleSendsAnEmailEveryTickAndIsListedByTheEndpoint() throws Exception {
		RedisEndpoint redis = TestRedis.shared();
		TestRedis.flushAll(redis);
		try (ConfigurableApplicationContext context = run(redis.port(), "--sample.embedded-redis=false",
				"--queue.schedules.digest.cron=* * * * * *")) {
			String base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
			EmailSender sender = context.getBean(EmailSender.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> sender.sent() >= 2);
			assertThat(get(base + "/actuator/queueschedules")).contains("\"name\":\"digest\"")
				.contains("\"queue\":\"emails\"")
				.contains("\"nextTick\"");
			assertThat(get(base + "/actuator/queueschedules/emails")).contains("\"cron\":\"* * * * * *\"");
			assertThat(get(base + "/emails")).doesNotContain("Digest");
		}
	}

	@Test
	void queuesEndpointAndHealthShowTheQueueAndTheEndpointPausesAndRetries() throws Exception {
		RedisEndpoint redis = TestRedis.shared();
		TestRedis.flushAll(redis);
		try (ConfigurableApplicationContext context = run(redis.port(), "--sample.embedded-redis=false",
				"--queue.listener.backoff.initial=20ms", "--queue.queues.emails.max-attempts=1",
				"--queue.metrics.refresh-interval=200ms",
				"--management.metrics.distribution.percentiles-histogram.queue.job.wait=true")) {
			String base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
			post(base + "/emails", "{\"to\":\"bob@example.com\",\"subject\":\"please fail\"}");
			await().atMost(Duration.ofSeconds(10)).until(() -> get(base + "/actuator/queues").contains("\"dead\":1"));

			assertThat(get(base + "/actuator/health")).contains("\"queue\"").contains("\"emails\"");
			String details = get(base + "/actuator/queues/emails");
			assertThat(details).contains("mail server refused").contains("\"workers\"");

			assertThat(post(base + "/actuator/queues/emails/pause", "{}").body()).contains("\"count\":1");
			assertThat(get(base + "/actuator/queues")).contains("\"paused\":true");
			assertThat(post(base + "/actuator/queues/emails/resume", "{}").statusCode()).isEqualTo(200);
			assertThat(post(base + "/actuator/queues/emails/purge-dead", "{}").body()).contains("\"count\":1");
			assertThat(get(base + "/actuator/queues")).contains("\"dead\":0").contains("\"paused\":false");
			await().atMost(Duration.ofSeconds(10))
				.until(() -> get(base + "/actuator/metrics/queue.jobs").contains("\"emails\""));
			assertThat(get(base + "/actuator/metrics/queue.job.outcomes?tag=outcome:dead_lettered"))
				.contains("\"value\":1.0");
			assertThat(get(base + "/actuator/prometheus")).contains("queue_jobs{")
				.contains("state=\"ready\"")
				.contains("queue_job_outcomes_total{")
				.contains("outcome=\"dead_lettered\"")
				.contains("queue_listener_seconds_count{")
				.contains("listener_id=\"email-sender\"")
				.contains("queue_enqueue_seconds_count{")
				.contains("queue_job_wait_seconds_count{")
				.contains("queue_job_wait_seconds_bucket{")
				.contains("queue_throughput{");
		}
	}

	@Test
	void startsAnEmbeddedRedisWhenNoneAnswers() throws Exception {
		int freePort;
		try (ServerSocket socket = new ServerSocket(0)) {
			freePort = socket.getLocalPort();
		}
		try (ConfigurableApplicationContext context = run(freePort, "--sample.embedded-redis=true")) {
			context.getBean(QueueTemplate.class).enqueue("emails", new Email("eve@example.com", "Hi"));
			EmailSender sender = context.getBean(EmailSender.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> sender.sent() == 1);
		}
	}

	/** The quick start on the Redis at the port, on a free HTTP port, with the extra arguments. */
	static ConfigurableApplicationContext run(int redisPort, String... extra) {
		SpringApplication application = new SpringApplication(QuickstartApplication.class);
		java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--server.port=0",
				"--spring.data.redis.port=" + redisPort, "--queue.listener.poll-interval=200ms"));
		if (java.util.Arrays.stream(extra).noneMatch((arg) -> arg.startsWith("--queue.schedules.digest.cron="))) {
			// the digest of every minute would add e-mails to the counts the other tests check
			args.add("--queue.schedules.digest.cron=0 0 0 1 1 *");
		}
		args.addAll(java.util.List.of(extra));
		return application.run(args.toArray(String[]::new));
	}

	private HttpResponse<String> post(String url, String json) throws Exception {
		return this.http.post(url, json);
	}

	private String get(String url) throws Exception {
		return this.http.get(url);
	}

}
