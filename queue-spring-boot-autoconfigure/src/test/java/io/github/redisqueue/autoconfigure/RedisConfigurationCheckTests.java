package io.github.redisqueue.autoconfigure;

import java.net.ServerSocket;
import java.time.Duration;

import io.github.redisqueue.autoconfigure.RedisConfigurationCheck.Report;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The startup check of the Redis settings, against private redis-server processes configured
 * each way: a warning for an eviction policy other than noeviction and one when nothing is
 * persisted, none for a safe Redis, INFO where CONFIG is not allowed, and an application that
 * starts at once whether Redis is down or hangs.
 */
// on one server only: it configures servers of its own
@Tag("single-node")
@ExtendWith(OutputCaptureExtension.class)
class RedisConfigurationCheckTests {

	private static final String EVICTION = "The queues' Redis may evict keys (maxmemory-policy";

	private static final String NOTHING_PERSISTED = "The queues' Redis persists nothing";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class));

	@Test
	void warnsWhenTheEvictionPolicyCanDeleteQueueKeys(CapturedOutput output) {
		try (RedisServerProcess server = TestRedis.startPrivate("--maxmemory-policy", "allkeys-lru", "--appendonly",
				"yes")) {
			runAgainst(server).run((context) -> {
				Report report = report(context);
				assertThat(report.source()).isEqualTo("CONFIG GET");
				assertThat(report.maxmemoryPolicy()).isEqualTo("allkeys-lru");
				assertThat(report.warnings()).hasSize(1);
				assertThat(output).contains("WARN")
					.contains(EVICTION + " allkeys-lru): under memory pressure it can delete queue keys, losing jobs "
							+ "and reusing job ids. Set maxmemory-policy noeviction")
					.doesNotContain(NOTHING_PERSISTED);
			});
		}
	}

	@Test
	void warnsWhenNeitherAppendOnlyFileNorSnapshotsAreOn(CapturedOutput output) {
		try (RedisServerProcess server = TestRedis.startPrivate("--appendonly", "no", "--save", "")) {
			runAgainst(server).run((context) -> {
				Report report = report(context);
				assertThat(report.appendonly()).isEqualTo("no");
				assertThat(report.save()).isEmpty();
				assertThat(report.warnings()).hasSize(1);
				assertThat(output).contains(NOTHING_PERSISTED + " (appendonly no, save ''): a restart of Redis loses "
						+ "every queue and every job").doesNotContain(EVICTION);
			});
		}
	}

	@Test
	void staysQuietForNoEvictionWithAppendOnlyFile(CapturedOutput output) {
		try (RedisServerProcess server = TestRedis.startPrivate("--appendonly", "yes", "--appendfsync", "always")) {
			runAgainst(server).run((context) -> {
				Report report = report(context);
				assertThat(report.maxmemoryPolicy()).isEqualTo("noeviction");
				assertThat(report.appendonly()).isEqualTo("yes");
				assertThat(report.appendfsync()).isEqualTo("always");
				assertThat(report.warnings()).isEmpty();
				assertThat(output).doesNotContain(EVICTION).doesNotContain(NOTHING_PERSISTED);
			});
		}
	}

	@Test
	void snapshotsAloneCountAsPersistence(CapturedOutput output) {
		try (RedisServerProcess server = TestRedis.startPrivate("--appendonly", "no", "--save", "3600 1")) {
			runAgainst(server).run((context) -> {
				Report report = report(context);
				assertThat(report.save()).isEqualTo("3600 1");
				assertThat(report.warnings()).isEmpty();
				assertThat(output).doesNotContain(NOTHING_PERSISTED);
			});
		}
	}

	@Test
	void readsInfoWhereConfigIsNotAllowed(CapturedOutput output) {
		try (RedisServerProcess server = TestRedis.startPrivate("--maxmemory-policy", "volatile-lru")) {
			LettuceConnectionFactory admin = TestRedis.connectionFactory(server.endpoint());
			try (RedisConnection connection = admin.getConnection()) {
				connection.execute("ACL", bytes("SETUSER"), bytes("queues"), bytes("on"), bytes(">secret"), bytes("~*"),
						bytes("&*"), bytes("+@all"), bytes("-config"));
			}
			finally {
				admin.destroy();
			}
			runAgainst(server).withPropertyValues("spring.data.redis.username=queues", "spring.data.redis.password=secret")
				.run((context) -> {
					Report report = report(context);
					assertThat(report.source()).isEqualTo("INFO");
					assertThat(report.maxmemoryPolicy()).isEqualTo("volatile-lru");
					assertThat(report.appendonly()).isEqualTo("no");
					assertThat(output).contains(EVICTION + " volatile-lru)")
						.contains("does not allow CONFIG GET, so whether RDB snapshots are on is unknown")
						.doesNotContain(NOTHING_PERSISTED);
				});
		}
	}

	@Test
	void startsAndGoesOnWhenRedisIsDown(CapturedOutput output) throws Exception {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		this.contextRunner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(QueueTemplate.class);
				Report report = report(context);
				assertThat(report.source()).isEqualTo("unavailable");
				assertThat(report.warnings()).isEmpty();
				assertThat(output).doesNotContain(EVICTION).doesNotContain(NOTHING_PERSISTED);
			});
	}

	@Test
	void startupDoesNotWaitForARedisThatHangs() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			server.freeze();
			try {
				// the check's call times out long after a startup that does not wait for it, even on a
				// loaded machine: a started context whose check is not done yet did not wait
				runAgainst(server).withPropertyValues("spring.data.redis.timeout=30s").run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(context.getBean(RedisConfigurationCheck.class).report()).isNotDone();
				});
			}
			finally {
				server.thaw();
			}
		}
	}

	@Test
	void canBeSwitchedOff() {
		this.contextRunner.withPropertyValues("queue.redis-check.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(QueueTemplate.class)
				.doesNotHaveBean(RedisConfigurationCheck.class));
	}

	private ApplicationContextRunner runAgainst(RedisServerProcess server) {
		return this.contextRunner.withPropertyValues("spring.data.redis.host=" + server.host(),
				"spring.data.redis.port=" + server.port());
	}

	private static Report report(AssertableApplicationContext context) {
		RedisConfigurationCheck check = context.getBean(RedisConfigurationCheck.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> check.report().isDone());
		return check.report().join();
	}

	private static byte[] bytes(String text) {
		return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
	}

}
