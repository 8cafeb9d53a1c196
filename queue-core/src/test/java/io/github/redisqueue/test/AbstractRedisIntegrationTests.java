package io.github.redisqueue.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Base of tests that need Redis: the shared test server, a connection factory and a
 * {@link StringRedisTemplate} per test class, and an empty database before each test. One
 * instance per class ({@link TestInstance.Lifecycle#PER_CLASS}) so the factory is a plain field.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractRedisIntegrationTests {

	protected LettuceConnectionFactory connectionFactory;

	protected StringRedisTemplate redis;

	/** The shared test server. */
	protected RedisEndpoint endpoint() {
		return TestRedis.shared();
	}

	@BeforeAll
	void connect() {
		this.connectionFactory = TestRedis.connectionFactory(endpoint());
		this.redis = new StringRedisTemplate(this.connectionFactory);
	}

	@BeforeEach
	void flush() {
		TestRedis.flushAll(endpoint());
	}

	/**
	 * Reserves {@code count} jobs of {@code queue} in as many calls as it takes (a call may stop at
	 * its bytes), each call handing out at least one; the jobs in the order they came.
	 */
	protected static List<ReservedJob> reserveInCalls(QueueTemplate queues, String queue, int count, Duration lease) {
		List<ReservedJob> jobs = new ArrayList<>();
		while (jobs.size() < count) {
			List<ReservedJob> got = queues.reserve(queue, count, lease);
			assertThat(got).isNotEmpty();
			jobs.addAll(got);
		}
		return jobs;
	}

	/**
	 * How many script calls (EVAL, EVALSHA and FCALL of the scripts' library) Redis ran so far, by {@code INFO commandstats},
	 * summed over the nodes of a cluster.
	 */
	protected long scriptCalls() {
		return commandCalls("evalsha") + commandCalls("eval") + commandCalls("fcall");
	}

	/**
	 * How many times Redis ran a command so far (clients' calls and scripts' alike), by
	 * {@code INFO commandstats}, summed over the nodes of a cluster.
	 * @param command the command's lower-case name, as {@code INFO commandstats} gives it
	 */
	protected long commandCalls(String command) {
		Properties stats;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			stats = connection.serverCommands().info("commandstats");
		}
		long calls = 0;
		for (String name : stats.stringPropertyNames()) {
			if (name.endsWith("cmdstat_" + command)) {
				calls += Long.parseLong(stats.getProperty(name).replaceAll("^calls=(\\d+),.*", "$1"));
			}
		}
		return calls;
	}

	@AfterAll
	void disconnect() {
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
		}
	}

}
