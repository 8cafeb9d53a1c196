package io.github.redisqueue.samples.outbox;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueCounts;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import io.github.redisqueue.test.WorkerJvm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The outbox closes the window between a database commit and the enqueue: the sample's JVM is
 * killed (SIGKILL) after it committed an order and its event, before the listener enqueued the
 * job; the next start publishes the event again and the job is enqueued, once, and its handler
 * finds the order's row.
 */
class OutboxRestartIntegrationTests {

	private static final Duration STARTUP = Duration.ofSeconds(90);

	@TempDir
	Path dir;

	private RedisEndpoint redis;

	private LettuceConnectionFactory connectionFactory;

	private QueueAdmin admin;

	@BeforeEach
	void connect() {
		this.redis = TestRedis.shared();
		TestRedis.flushAll(this.redis);
		this.connectionFactory = TestRedis.connectionFactory(this.redis);
		this.admin = new QueueAdmin(new QueueTemplate(this.connectionFactory));
	}

	@AfterEach
	void disconnect() {
		this.connectionFactory.destroy();
	}

	@Test
	void killBetweenCommitAndEnqueueEnqueuesTheJobOnceAfterTheRestart() throws InterruptedException {
		Map<String, String> first = settings();
		first.put("sample.outbox.place-order", "book");
		first.put("sample.outbox.gate", this.dir.resolve("never-opened").toString());
		try (WorkerJvm app = WorkerJvm.launch("outbox-first", OutboxJvmMain.class, first)) {
			app.awaitOutput("Order 1 committed; waiting for", STARTUP);
			// the order and its event are committed; the job is not in Redis
			QueueCounts counts = this.admin.counts("shipments");
			assertThat(counts.total("enqueued")).isZero();
			assertThat(counts.pending()).isZero();
			assertThat(app.kill()).isEqualTo(137);
			assertThat(app.log()).doesNotContain("Shipment of order 1 enqueued");
		}
		assertThat(this.admin.counts("shipments").total("enqueued")).as("enqueued while it died").isZero();

		try (WorkerJvm app = WorkerJvm.launch("outbox-restarted", OutboxJvmMain.class, settings())) {
			app.awaitOutput("Shipped order 1 (book)", STARTUP);
			await().atMost(Duration.ofSeconds(30))
				.until(() -> this.admin.counts("shipments").total("completed") == 1);
			QueueCounts counts = this.admin.counts("shipments");
			assertThat(counts.total("enqueued")).as("jobs enqueued").isEqualTo(1);
			assertThat(counts.pending()).isZero();
			assertThat(count(app.log(), "Shipment of order 1 enqueued: job \\d+ \\(duplicate: false\\)")).isEqualTo(1);
			assertThat(count(app.log(), "Shipped order 1 ")).isEqualTo(1);
			assertThat(app.log()).doesNotContain("Order 2");
		}
	}

	private Map<String, String> settings() {
		Map<String, String> settings = new LinkedHashMap<>();
		for (String property : TestRedis.springProperties(this.redis)) {
			int equals = property.indexOf('=');
			settings.put(property.substring(0, equals), property.substring(equals + 1));
		}
		settings.put("sample.embedded-redis", "false");
		settings.put("sample.outbox.data", this.dir.toString());
		return settings;
	}

	private static int count(String text, String regex) {
		Matcher matcher = Pattern.compile(regex).matcher(text);
		int count = 0;
		while (matcher.find()) {
			count++;
		}
		return count;
	}

}
