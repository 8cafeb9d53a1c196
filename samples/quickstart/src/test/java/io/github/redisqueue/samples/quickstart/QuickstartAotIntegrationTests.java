package io.github.redisqueue.samples.quickstart;

import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import io.github.redisqueue.test.WorkerJvm;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The quick start built with Spring AOT (the build's {@code process-aot} step) and started in a
 * JVM of its own with {@code -Dspring.aot.enabled=true}: the context comes from the generated
 * code, and e-mails posted over HTTP are sent by the {@code @QueueListener}, failing ones
 * dead-lettered, the counts and the dashboard served.
 */
class QuickstartAotIntegrationTests {

	private final SampleHttp http = new SampleHttp();

	@Test
	void theAotProcessedApplicationHandlesPostedEmails() throws Exception {
		RedisEndpoint redis = TestRedis.shared();
		TestRedis.flushAll(redis);
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		try (WorkerJvm app = WorkerJvm.launch("quickstart-aot", QuickstartAotMain.class,
				Map.of("spring.aot.enabled", "true", "server.port", String.valueOf(port), "spring.data.redis.host",
						redis.host(), "spring.data.redis.port", String.valueOf(redis.port()), "sample.embedded-redis",
						"false", "queue.listener.poll-interval", "200ms", "queue.listener.backoff.initial", "50ms",
						"queue.schedules.digest.cron", "0 0 0 1 1 *"))) {
			app.awaitOutput("Started QuickstartApplication", Duration.ofSeconds(90));
			assertThat(app.log()).contains("Starting AOT-processed QuickstartApplication");
			String base = "http://localhost:" + port;

			HttpResponse<String> accepted = post(base + "/emails", "{\"to\":\"ada@example.com\",\"subject\":\"Hello\"}");
			assertThat(accepted.statusCode()).isEqualTo(202);
			assertThat(accepted.body()).contains("\"duplicate\":false");
			post(base + "/emails", "{\"to\":\"bob@example.com\",\"subject\":\"please fail\"}");

			await().atMost(Duration.ofSeconds(20))
				.until(() -> get(base + "/emails"), (status) -> status.contains("\"sent\":1")
						&& status.contains("\"completed\":1") && status.contains("mail server refused"));
			assertThat(get(base + "/emails")).contains("\"dead\":1");
			assertThat(get(base + "/queues/assets/app.js")).isNotBlank();
			assertThat(get(base + "/queues/api/overview")).contains("\"name\":\"emails\"");
			assertThat(get(base + "/actuator/health")).contains("\"status\":\"UP\"");
		}
	}

	private HttpResponse<String> post(String url, String json) throws Exception {
		return this.http.post(url, json);
	}

	private String get(String url) throws Exception {
		return this.http.get(url);
	}

}
