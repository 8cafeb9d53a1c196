package io.github.redisqueue.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The test support itself: the shared server, private servers that survive SIGKILL with an
 * append-only file, and the embedded binary as the last-resort source.
 */
class TestRedisIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void sharedServerAnswersPingAndReportsItsOrigin() throws Exception {
		RedisEndpoint shared = TestRedis.shared();

		assertThat(TestRedis.shared()).isSameAs(shared);
		assertThat(endpoint()).isSameAs(shared);
		assertThat(shared.uri()).isEqualTo("redis://" + shared.host() + ":" + shared.port());
		assertThat(shared.origin()).isNotBlank();
		assertThat(RespClient.call(shared.host(), shared.port(), "PING")).isEqualTo("PONG");
		String forced = System.getProperty(TestRedis.SOURCE_PROPERTY, "");
		if (forced.equals("embedded")) {
			assertThat(shared.origin()).startsWith("embedded-redis 0.9.1 binary");
			assertThat(RespClient.call(shared.host(), shared.port(), "INFO", "server")).contains("redis_version:7.0.15");
		}
		else if (forced.equals("path")) {
			assertThat(shared.origin()).contains("redis-server");
		}
		this.redis.opsForValue().set("greeting", "hello");
		assertThat(RespClient.call(shared.host(), shared.port(), "GET", "greeting")).isEqualTo("hello");
	}

	@RepeatedTest(2)
	void everyTestStartsWithAnEmptyServer() {
		assertThat(this.redis.keys("*")).isEmpty();
		this.redis.opsForValue().set("left-behind", "x");
	}

	@Test
	void privateServerWithAppendOnlyFileKeepsAcknowledgedWritesAcrossKillMinusNine() throws Exception {
		try (RedisServerProcess server = TestRedis.startPrivate("--appendonly", "yes", "--appendfsync", "always")) {
			assertThat(RespClient.call(server.host(), server.port(), "SET", "survivor", "42")).isEqualTo("OK");
			long pid = server.pid();
			int port = server.port();

			server.kill();
			assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
			assertThat(server.isAlive()).isFalse();
			await().atMost(Duration.ofSeconds(5))
				.until(() -> !answersPing(server.host(), port));

			server.restart();
			assertThat(server.port()).isEqualTo(port);
			assertThat(server.pid()).isNotEqualTo(pid);
			assertThat(RespClient.call(server.host(), server.port(), "GET", "survivor")).isEqualTo("42");
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			try {
				assertThat(new StringRedisTemplate(factory).opsForValue().get("survivor")).isEqualTo("42");
				assertThat(config(factory, "appendonly")).isEqualTo("yes");
				assertThat(config(factory, "save")).isEmpty();
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void privateServerDefaultsToNoPersistenceAndCloseStopsItAndDeletesItsFolder() throws Exception {
		RedisServerProcess server = TestRedis.startPrivate();
		Path dir = server.dir();
		long pid = server.pid();
		LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
		try {
			assertThat(config(factory, "appendonly")).isEqualTo("no");
			assertThat(config(factory, "save")).isEmpty();
			assertThat(config(factory, "bind")).isEqualTo("127.0.0.1");
			assertThat(config(factory, "dir")).isEqualTo(dir.toRealPath().toString());
		}
		finally {
			factory.destroy();
		}
		assertThat(dir.resolve("redis.log")).isNotEmptyFile();

		server.close();
		assertThat(server.isAlive()).isFalse();
		assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
		assertThat(dir).doesNotExist();
	}

	@Test
	void embeddedBinaryStartsExplicitly() throws Exception {
		Path binary = TestRedis.embeddedBinary();

		assertThat(TestRedis.embeddedBinary()).isEqualTo(binary);
		assertThat(binary.getFileName().toString()).startsWith("redis-server-7.0.15-");
		assertThat(Files.isExecutable(binary)).isTrue();
		try (RedisServerProcess server = new RedisServerProcess(binary).start()) {
			assertThat(server.isAlive()).isTrue();
			assertThat(RespClient.call(server.host(), server.port(), "PING")).isEqualTo("PONG");
			assertThat(RespClient.call(server.host(), server.port(), "INFO", "server")).contains("redis_version:7.0.15")
				.contains("process_id:" + server.pid());
		}
	}

	@Test
	void serverThatCannotStartFailsWithItsLog() {
		RedisServerProcess server = new RedisServerProcess(TestRedis.embeddedBinary(), "--no-such-directive", "yes");
		try {
			assertThatIllegalStateException().isThrownBy(server::start)
				.withMessageContaining("exited with")
				.withMessageContaining("Bad directive");
			assertThat(server.isAlive()).isFalse();
		}
		finally {
			server.close();
		}
	}

	@Test
	void unknownSourceIsRefusedWithTheValidValues() {
		assertThatIllegalStateException().isThrownBy(() -> TestRedis.startShared("memcached"))
			.withMessageContaining(TestRedis.SOURCE_PROPERTY)
			.withMessageContaining("[url, docker, path, embedded]");
	}

	private static boolean answersPing(String host, int port) {
		try {
			return "PONG".equals(RespClient.call(host, port, "PING"));
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static String config(LettuceConnectionFactory factory, String name) {
		try (RedisConnection connection = factory.getConnection()) {
			Properties config = connection.serverCommands().getConfig(name);
			return config.getProperty(name);
		}
	}

}
