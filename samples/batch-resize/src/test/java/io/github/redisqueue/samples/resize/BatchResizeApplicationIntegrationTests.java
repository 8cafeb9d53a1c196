package io.github.redisqueue.samples.resize;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redisqueue.test.RedisEndpoint;
import io.github.redisqueue.test.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The batch sample as a user runs it: a request posted over HTTP is resized piece by piece, never
 * more than its cap at once, its progress streams as server-sent events, its results are read,
 * the completion listener runs once; a cancelled request ends as cancelled.
 */
class BatchResizeApplicationIntegrationTests {

	private final HttpClient http = HttpClient.newHttpClient();

	private ConfigurableApplicationContext context;

	private String base;

	@BeforeEach
	void start() {
		RedisEndpoint redis = TestRedis.shared();
		TestRedis.flushAll(redis);
		SpringApplication application = new SpringApplication(BatchResizeApplication.class);
		this.context = application.run("--server.port=0", "--spring.data.redis.port=" + redis.port(),
				"--sample.embedded-redis=false", "--queue.listener.poll-interval=200ms");
		this.base = "http://localhost:" + this.context.getEnvironment().getProperty("local.server.port");
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	@Test
	void aRequestIsResizedWithinItsCapAndItsCompletionListenerRunsOnce() throws Exception {
		HttpResponse<String> created = post("/requests",
				"{\"image\":\"cat.png\",\"pieces\":12,\"maxConcurrency\":3,\"priority\":50}");
		assertThat(created.statusCode()).isEqualTo(201);
		String location = created.headers().firstValue("Location").orElseThrow();
		String id = location.substring(location.lastIndexOf('/') + 1);

		List<String> events = events("/requests/" + id + "/events");

		assertThat(events).last().asString().startsWith("event:finished").contains("\"state\":\"COMPLETED\"")
			.contains("\"completed\":12");
		assertThat(events).anyMatch((event) -> event.startsWith("event:progress"));
		Resizer resizer = this.context.getBean(Resizer.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> resizer.finished().contains(id));
		assertThat(resizer.finished()).containsExactly(id);
		assertThat(resizer.mostRunning()).isEqualTo(3);
		String results = get("/requests/" + id + "/results").body();
		assertThat(results).contains("cat.png.0.small.png").contains("cat.png.11.small.png");
		assertThat(get("/requests/" + id).body()).contains("\"total\":12").contains("\"maxConcurrency\":3");
	}

	@Test
	void aCancelledRequestEndsCancelledAndUnknownOnesAreNotFound() throws Exception {
		String location = post("/requests", "{\"image\":\"big.png\",\"pieces\":2000,\"maxConcurrency\":1,\"priority\":0}")
			.headers()
			.firstValue("Location")
			.orElseThrow();
		String id = location.substring(location.lastIndexOf('/') + 1);

		HttpResponse<String> cancelled = this.http.send(
				HttpRequest.newBuilder(URI.create(this.base + "/requests/" + id)).DELETE().build(),
				HttpResponse.BodyHandlers.ofString());

		assertThat(cancelled.statusCode()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> get("/requests/" + id).body().contains("\"state\":\"CANCELLED\""));
		Resizer resizer = this.context.getBean(Resizer.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> resizer.finished().contains(id));
		assertThat(get("/requests/nope").statusCode()).isEqualTo(404);
		assertThat(post("/requests", "{\"image\":\"x.png\",\"pieces\":0,\"maxConcurrency\":1,\"priority\":0}")
			.statusCode()).isEqualTo(400);
	}

	private List<String> events(String path) throws Exception {
		HttpResponse<java.util.stream.Stream<String>> response = this.http.send(
				HttpRequest.newBuilder(URI.create(this.base + path)).timeout(Duration.ofSeconds(30)).build(),
				HttpResponse.BodyHandlers.ofLines());
		List<String> events = new ArrayList<>();
		StringBuilder event = new StringBuilder();
		response.body().forEach((line) -> {
			if (line.isEmpty()) {
				if (!event.isEmpty()) {
					events.add(event.toString());
					event.setLength(0);
				}
			}
			else {
				event.append(line);
			}
		});
		return events;
	}

	private HttpResponse<String> post(String path, String json) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create(this.base + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create(this.base + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

}
