package io.github.redisqueue.samples.resize;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.testing.QueueTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.annotation.DirtiesContext.ClassMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The batch sample as a user runs it: a request posted over HTTP is resized piece by piece, never
 * more than its cap at once, its progress streams as server-sent events, its results are read,
 * the completion listener runs once; a cancelled request ends as cancelled. Each test has an
 * application of its own (the listener records what it finished) and starts with empty queues.
 */
@QueueTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis=false", "queue.listener.poll-interval=200ms" })
@DirtiesContext(classMode = ClassMode.AFTER_EACH_TEST_METHOD)
class BatchResizeApplicationIntegrationTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@Autowired
	private ConfigurableApplicationContext context;

	@LocalServerPort
	private int port;

	private String base;

	@BeforeEach
	void base() {
		this.base = "http://localhost:" + this.port;
	}

	@Test
	void aRequestIsResizedWithinItsCapAndItsCompletionListenerRunsOnce() throws Exception {
		// no tile runs before the event stream is open, so its first event is the untouched request
		QueueAdminOperations admin = this.context.getBean(QueueAdminOperations.class);
		admin.pause(ResizeController.QUEUE);
		HttpResponse<String> created = post("/requests",
				"{\"image\":\"cat.png\",\"pieces\":12,\"maxConcurrency\":3,\"priority\":50}");
		assertThat(created.statusCode()).isEqualTo(201);
		String location = created.headers().firstValue("Location").orElseThrow();
		String id = location.substring(location.lastIndexOf('/') + 1);

		List<String> events = events("/requests/" + id + "/events", () -> admin.resume(ResizeController.QUEUE));

		assertThat(events.get(0)).startsWith("event:progress").contains("\"waiting\":9").contains("\"active\":3")
			.contains("\"completed\":0");
		assertThat(events).last().asString().startsWith("event:finished").contains("\"state\":\"COMPLETED\"")
			.contains("\"completed\":12");
		Resizer resizer = this.context.getBean(Resizer.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> resizer.finished().contains(id));
		assertThat(resizer.finished()).containsExactly(id);
		assertThat(resizer.mostRunning()).isPositive().isLessThanOrEqualTo(3);
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

	/** The events of a stream until it ends; {@code afterFirst} runs once the first one arrived. */
	private List<String> events(String path, Runnable afterFirst) throws Exception {
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
					if (events.size() == 1) {
						afterFirst.run();
					}
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
