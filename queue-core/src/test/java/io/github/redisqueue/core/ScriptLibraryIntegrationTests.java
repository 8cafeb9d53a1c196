package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue's calls go to the functions of the scripts' library ({@code FCALL}), loaded by the
 * template where Redis lacks it; a user who may not load or call functions gets the same work done
 * by the scripts ({@code EVALSHA}).
 */
class ScriptLibraryIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void aQueuesCallsRunAsFunctionsOfTheLibrary() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		long functions = commandCalls("fcall");
		long scripts = commandCalls("evalsha") + commandCalls("eval");
		workload(queues, "functions");
		assertThat(commandCalls("fcall") - functions).isGreaterThanOrEqualTo(4);
		assertThat(commandCalls("evalsha") + commandCalls("eval")).isEqualTo(scripts);
		assertThat(queues.context().executor().usesFunctions()).isTrue();
	}

	@Test
	void aUserWhoMayNotUseFunctionsGetsTheWorkDoneByTheScripts() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory admin = TestRedis.connectionFactory(server.endpoint());
			RedisStandaloneConfiguration limited = new RedisStandaloneConfiguration(server.host(), server.port());
			limited.setUsername("no-functions");
			limited.setPassword("secret");
			LettuceConnectionFactory user = new LettuceConnectionFactory(limited);
			try {
				command(admin, "ACL", "SETUSER", "no-functions", "on", ">secret", "~*", "&*", "+@all", "-fcall",
						"-fcall_ro", "-function");
				user.afterPropertiesSet();
				user.start();
				QueueTemplate queues = new QueueTemplate(user);
				workload(queues, "scripts");
				assertThat(queues.context().executor().usesFunctions()).isFalse();
				assertThat(calls(admin, "fcall")).isEqualTo(1);
				assertThat(calls(admin, "evalsha")).isGreaterThanOrEqualTo(4);
			}
			finally {
				user.destroy();
				admin.destroy();
			}
		}
	}

	private static void workload(QueueTemplate queues, String queue) {
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue(queue, "a");
		List<ReservedJob> jobs = queues.reserve(queue, 1, Duration.ofMinutes(1));
		assertThat(jobs).hasSize(1);
		assertThat(queues.complete(queue, jobs.get(0).ref())).isEqualTo(AckResult.OK);
		assertThat(admin.counts(queue).total("completed")).isEqualTo(1);
	}

	private static Object command(LettuceConnectionFactory factory, String command, String... args) {
		byte[][] bytes = new byte[args.length][];
		for (int i = 0; i < args.length; i++) {
			bytes[i] = args[i].getBytes(StandardCharsets.UTF_8);
		}
		try (RedisConnection connection = factory.getConnection()) {
			return connection.execute(command, bytes);
		}
	}

	/** The calls of a command Redis counted, refused ones included. */
	private static long calls(LettuceConnectionFactory factory, String command) {
		try (RedisConnection connection = factory.getConnection()) {
			Properties stats = connection.serverCommands().info("commandstats");
			String line = stats.getProperty("cmdstat_" + command, "calls=0,");
			long calls = Long.parseLong(line.replaceAll("^calls=(\\d+),.*", "$1"));
			long rejected = line.contains("rejected_calls=")
					? Long.parseLong(line.replaceAll(".*rejected_calls=(\\d+).*", "$1")) : 0;
			return calls + rejected;
		}
	}

}
