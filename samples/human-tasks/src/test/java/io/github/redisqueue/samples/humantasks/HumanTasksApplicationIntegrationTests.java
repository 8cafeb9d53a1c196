package io.github.redisqueue.samples.humantasks;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * People as consumers, over HTTP: a task taken and abandoned comes back after its lease, and the
 * first taker can no longer finish it; a task given back is at once available to the next person.
 */
class HumanTasksApplicationIntegrationTests {

	private final HttpClient http = HttpClient.newHttpClient();

	private final JsonMapper json = JsonMapper.builder().build();

	private ConfigurableApplicationContext context;

	private String base;

	@BeforeEach
	void start() {
		RedisEndpoint redis = TestRedis.shared();
		TestRedis.flushAll(redis);
		this.context = new SpringApplication(HumanTasksApplication.class).run("--server.port=0",
				"--spring.data.redis.port=" + redis.port(), "--sample.embedded-redis=false", "--queue.reaper.interval=200ms");
		this.base = "http://localhost:" + this.context.getEnvironment().getProperty("local.server.port");
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	@Test
	void abandonedTaskComesBackAfterItsLeaseAndTheFirstTakerCannotFinishIt() throws Exception {
		assertThat(post("/tasks", "{\"title\":\"Review PR 12\",\"details\":\"Check the tests\"}").statusCode())
			.isEqualTo(201);
		JsonNode first = this.json.readTree(post("/tasks/take?lease=PT0.5S", "").body());
		assertThat(first.get("title").asString()).isEqualTo("Review PR 12");
		assertThat(post("/tasks/take", "").statusCode()).isEqualTo(204);

		HttpResponse<String> second = await().atMost(Duration.ofSeconds(10))
			.until(() -> post("/tasks/take", ""), (response) -> response.statusCode() == 200);
		JsonNode task = this.json.readTree(second.body());
		assertThat(task.get("id").asString()).isEqualTo(first.get("id").asString());
		// a lease that ran out is a loss without an outcome, not a failed attempt
		assertThat(task.get("attempt").asInt()).isEqualTo(1);

		assertThat(post("/tasks/" + first.get("id").asString() + "/done?token=" + first.get("token").asLong(), "")
			.statusCode()).isEqualTo(409);
		assertThat(post("/tasks/" + task.get("id").asString() + "/done?token=" + task.get("token").asLong(), "")
			.statusCode()).isEqualTo(204);
		assertThat(get("/tasks")).contains("\"completed\":1");
	}

	@Test
	void taskGivenBackIsAvailableToTheNextPersonAtOnce() throws Exception {
		post("/tasks", "{\"title\":\"Label photos\",\"details\":\"\"}");
		JsonNode taken = this.json.readTree(post("/tasks/take", "").body());
		assertThat(post("/tasks/" + taken.get("id").asString() + "/give-back?token=" + taken.get("token").asLong(), "")
			.statusCode()).isEqualTo(204);
		JsonNode again = this.json.readTree(post("/tasks/take", "").body());
		assertThat(again.get("id").asString()).isEqualTo(taken.get("id").asString());
		assertThat(again.get("attempt").asInt()).isEqualTo(1);
	}

	@Test
	void thePageIsServed() throws Exception {
		assertThat(get("/")).contains("<h1>Review tasks</h1>").contains("/tasks/take");
	}

	private HttpResponse<String> post(String path, String body) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create(this.base + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private String get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create(this.base + path)).build(),
				HttpResponse.BodyHandlers.ofString()).body();
	}

}
