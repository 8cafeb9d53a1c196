package io.github.redisqueue.samples.quickstart;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.testing.ExpectDeadLetters;
import io.github.redisqueue.testing.QueueTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code queues} Actuator endpoint over real HTTP against a real Redis: reading all queues
 * and one queue with its dead letters and workers, and every write operation (allowed by the
 * sample's {@code management.endpoint.queues.access=unrestricted}), each logged; one job with
 * its progress, 404 once it is gone; invalid requests answer 400 with the rule they break. Each
 * test starts with empty queues ({@code @QueueTest} deletes the queues' keys before it).
 */
@QueueTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis=false", "queue.queues.emails.max-attempts=1",
				"queue.listener.poll-interval=200ms", "queue.workers.heartbeat-interval=200ms",
				"queue.workers.time-to-live=2s", "spring.web.error.include-message=always" })
@ExtendWith(OutputCaptureExtension.class)
@DirtiesContext
class QueuesEndpointHttpIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private QueueTemplate queues;

	@Autowired
	private QueueAdminOperations admin;

	@Test
	@ExpectDeadLetters("emails")
	void readsQueuesAndDeadLettersAndActsOnThem(CapturedOutput output) throws Exception {
		this.queues.enqueue("emails", new Email("bob@example.com", "please fail 1"));
		this.queues.enqueue("emails", new Email("eve@example.com", "please fail 2"));
		await().atMost(Duration.ofSeconds(10)).until(() -> get("/actuator/queues").at("/emails/dead").asLong() == 2);

		JsonNode all = get("/actuator/queues");
		assertThat(all.at("/emails/paused").asBoolean()).isFalse();
		assertThat(all.at("/emails/totals/dead").asLong()).isGreaterThanOrEqualTo(2);
		assertThat(all.at("/emails/headAgeMillis").isNumber()).isTrue();
		assertThat(all.at("/emails/throughputPerSecond").isNumber()).isTrue();

		JsonNode page = get("/actuator/queues/emails?offset=0&size=1");
		assertThat(page.at("/deadLetters")).hasSize(1);
		JsonNode letter = page.at("/deadLetters/0");
		assertThat(letter.at("/error").asString()).contains("mail server refused");
		assertThat(letter.at("/attempts").asInt()).isEqualTo(1);
		assertThat(get("/actuator/queues/emails?offset=1&size=1").at("/deadLetters")).hasSize(1);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> get("/actuator/queues/emails").at("/workers").size() == 1);
		assertThat(get("/actuator/queues/emails").at("/workers/0/queues").toString()).contains("emails");

		assertThat(post("/actuator/queues/emails/pause", "{}").at("/count").asLong()).isEqualTo(1);
		assertThat(get("/actuator/queues").at("/emails/paused").asBoolean()).isTrue();
		String id = letter.at("/id").asString();
		assertThat(post("/actuator/queues/emails/retry-dead", "{\"id\":\"" + id + "\"}").at("/count").asLong())
			.isEqualTo(1);
		assertThat(get("/actuator/queues").at("/emails/ready").asLong()).isEqualTo(1);
		assertThat(get("/actuator/queues").at("/emails/dead").asLong()).isEqualTo(1);
		assertThat(post("/actuator/queues/emails/purge-dead", "{}").at("/count").asLong()).isEqualTo(1);
		assertThat(get("/actuator/queues").at("/emails/dead").asLong()).isZero();
		assertThat(post("/actuator/queues/emails/resume", "{}").at("/count").asLong()).isEqualTo(1);
		// the retried job runs again, fails again and is dead once more; retry-dead without id takes all
		await().atMost(Duration.ofSeconds(10)).until(() -> get("/actuator/queues").at("/emails/dead").asLong() == 1);
		assertThat(post("/actuator/queues/emails/retry-dead", "{}").at("/count").asLong()).isEqualTo(1);

		assertThat(output).contains("Queue 'emails': pause through the queues endpoint changed its state")
			.contains("Queue 'emails': retry-dead touched 1 job(s)")
			.contains("Queue 'emails': purge-dead touched 1 job(s)")
			.contains("Queue 'emails': resume through the queues endpoint changed its state");
		assertThat(status("/actuator/queues/emails/explode")).isEqualTo(400);
	}

	@Test
	void pauseAndResumeCountOnlyAChangeOfState() throws Exception {
		assertThat(post("/actuator/queues/idle/pause", "{}").at("/count").asLong()).isEqualTo(1);
		assertThat(post("/actuator/queues/idle/pause", "{}").at("/count").asLong()).isZero();
		assertThat(post("/actuator/queues/idle/resume", "{}").at("/count").asLong()).isEqualTo(1);
		JsonNode again = post("/actuator/queues/idle/resume", "{}");
		assertThat(again.at("/queue").asString()).isEqualTo("idle");
		assertThat(again.at("/action").asString()).isEqualTo("resume");
		assertThat(again.at("/count").asLong()).isZero();
	}

	@Test
	void oneJobWithItsProgressAndNotFoundOnceItCompleted() throws Exception {
		String id = this.queues.enqueue("exports", "customers.csv").id();
		ReservedJob job = this.queues.reserve("exports", 1, Duration.ofMinutes(1)).get(0);
		assertThat(this.queues.progress("exports", job.ref(), 40)).isTrue();

		JsonNode running = get("/actuator/queues/exports/jobs/" + id);
		assertThat(running.at("/id").asString()).isEqualTo(id);
		assertThat(running.at("/state").asString()).isEqualTo("ACTIVE");
		assertThat(running.at("/attempts").asInt()).isZero();
		assertThat(running.at("/progress").asString()).isEqualTo("40");
		assertThat(running.at("/payload").asString()).isEqualTo("\"customers.csv\"");

		this.queues.complete("exports", job.ref());
		assertThat(getStatus("/actuator/queues/exports/jobs/" + id)).isEqualTo(404);
		assertThat(getStatus("/actuator/queues/exports/workers/" + id)).isEqualTo(400);
	}

	@Test
	void invalidQueueNamesAndPagesAreBadRequestsWithTheRule() throws Exception {
		HttpResponse<String> read = this.http.send(HttpRequest.newBuilder(uri("/actuator/queues/bad%20name")).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(read.statusCode()).as(read.body()).isEqualTo(400);
		assertThat(read.body()).contains("Queue name 'bad name' is invalid")
			.contains("letters, digits, '.', '_' or '-'");
		HttpResponse<String> write = send("/actuator/queues/bad%20name/pause", "{}");
		assertThat(write.statusCode()).as(write.body()).isEqualTo(400);
		assertThat(write.body()).contains("Queue name 'bad name' is invalid");
		assertThat(send("/actuator/queues/bad%20name/retry-dead", "{\"id\":\"1\"}").statusCode()).isEqualTo(400);
		HttpResponse<String> page = this.http.send(
				HttpRequest.newBuilder(uri("/actuator/queues/emails?offset=-1&size=5")).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(page.statusCode()).as(page.body()).isEqualTo(400);
		assertThat(page.body()).contains("offset -1 is invalid");
		HttpResponse<String> size = this.http.send(
				HttpRequest.newBuilder(uri("/actuator/queues/emails?size=0")).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(size.statusCode()).as(size.body()).isEqualTo(400);
		assertThat(size.body()).contains("size 0 is out of range");
	}

	private JsonNode get(String path) throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri(path)).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private JsonNode post(String path, String body) throws Exception {
		HttpResponse<String> response = send(path, body);
		assertThat(response.statusCode()).as("POST %s: %s", path, response.body()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private int getStatus(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString())
			.statusCode();
	}

	private int status(String path) throws Exception {
		return send(path, "{}").statusCode();
	}

	private HttpResponse<String> send(String path, String body) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

}
