package io.github.redisqueue.samples.quickstart;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.testing.QueueTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code queues} endpoint with Spring Boot's defaults (the sample's own application.yml,
 * which raises its access, is not loaded): exposing it exposes the reads only; a write is refused
 * and changes nothing. Its listener does not start and the context closes after the class, so
 * it never consumes the shared Redis's e-mails meant for the other tests.
 */
@QueueTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.config.name=queues-endpoint-defaults", "sample.embedded-redis=false",
				"management.endpoints.web.exposure.include=queues", "queue.listener.auto-startup=false" })
@DirtiesContext
class QueuesEndpointDefaultAccessHttpIntegrationTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private QueueTemplate queues;

	@Autowired
	private QueueAdminOperations admin;

	@Test
	void readsAreExposedAndWritesAreRefused() throws Exception {
		this.queues.enqueue("guarded", "x");

		HttpResponse<String> all = get("/actuator/queues");
		assertThat(all.statusCode()).isEqualTo(200);
		assertThat(all.body()).contains("\"guarded\"");
		assertThat(get("/actuator/queues/guarded").statusCode()).isEqualTo(200);

		for (String action : new String[] { "pause", "retry-dead", "purge-dead", "resume" }) {
			HttpResponse<String> write = post("/actuator/queues/guarded/" + action);
			assertThat(write.statusCode()).as("POST %s: %s", action, write.body()).isEqualTo(404);
		}
		assertThat(this.admin.counts("guarded").paused()).isFalse();
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{}"))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

}
