package io.github.redisqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import io.github.redisqueue.core.script.QueueScriptExecutor;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis past {@code maxmemory} ({@code noeviction}) answers the functions of the scripts' library
 * as it answers the scripts: Redis refuses a function without flags before it runs, whatever it
 * would write, while a script is refused only at its first write that adds data; so a call the
 * library was refused runs as the script, and reads and the calls that only delete still work.
 */
// on one server only: it starts a server of its own
@Tag("single-node")
class ScriptLibraryOutOfMemoryIntegrationTests {

	@Test
	void aFullRedisAnswersTheFunctionsAsItAnswersTheScripts() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			try {
				QueueTemplate functions = new QueueTemplate(factory);
				QueueTemplate scripts = new QueueTemplate(factory, new JacksonJobSerializer(), QueueSettings.defaults(),
						new QueueScripts(false));
				List<JobRef> byFunctions = prepare(functions, "functions");
				List<JobRef> byScripts = prepare(scripts, "scripts");
				maxmemory(factory, "1");
				List<String> withFunctions = outcomes(functions, "functions", byFunctions);
				List<String> withScripts = outcomes(scripts, "scripts", byScripts);
				maxmemory(factory, "0");
				assertThat(withFunctions).isEqualTo(withScripts);
				// not vacuous: a read answers, an enqueue is refused
				assertThat(withScripts.get(0)).startsWith("counts: ready 0 in flight 2 dead 1");
				assertThat(withScripts).contains("enqueue: OOM");
				assertThat(functions.context().executor().usesFunctions()).isTrue();
				assertThat(counts(new QueueAdmin(functions), "functions"))
					.isEqualTo(counts(new QueueAdmin(scripts), "scripts"));
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void aLibraryThatAFullRedisWillNotLoadLeavesFunctionsOn() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			try {
				QueueTemplate queues = new QueueTemplate(factory);
				QueueAdmin admin = new QueueAdmin(queues);
				prepare(queues, "flushed");
				try (RedisConnection connection = factory.getConnection()) {
					connection.execute("FUNCTION", "FLUSH".getBytes(java.nio.charset.StandardCharsets.UTF_8));
				}
				maxmemory(factory, "1");
				// FUNCTION LOAD is refused (OOM): the call runs as the script
				assertThat(counts(admin, "flushed")).isEqualTo("ready 0 in flight 2 dead 1 completed 0");
				maxmemory(factory, "0");
				assertThat(queues.context().executor().usesFunctions()).isTrue();
				long functions = calls(factory, "fcall");
				assertThat(counts(admin, "flushed")).isEqualTo("ready 0 in flight 2 dead 1 completed 0");
				assertThat(calls(factory, "fcall")).isGreaterThan(functions);
			}
			finally {
				factory.destroy();
			}
		}
	}

	private static long calls(LettuceConnectionFactory factory, String command) {
		try (RedisConnection connection = factory.getConnection()) {
			String line = connection.serverCommands().info("commandstats").getProperty("cmdstat_" + command, "calls=0,");
			return Long.parseLong(line.replaceAll("^calls=(\\d+),.*", "$1"));
		}
	}

	private static List<JobRef> prepare(QueueTemplate queues, String queue) {
		for (int i = 0; i < 3; i++) {
			queues.enqueue(queue, "job " + i);
		}
		List<JobRef> refs = new ArrayList<>();
		queues.reserve(queue, 3, Duration.ofMinutes(1)).forEach((job) -> refs.add(job.ref()));
		assertThat(refs).hasSize(3);
		queues.deadLetter(queue, refs.get(2), "boom");
		return refs;
	}

	private static List<String> outcomes(QueueTemplate queues, String queue, List<JobRef> refs) {
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> outcomes = new ArrayList<>();
		outcomes.add(outcome("counts", () -> counts(admin, queue)));
		outcomes.add(outcome("counts of many", () -> counts(admin.counts(List.of(queue)).get(queue))));
		outcomes.add(outcome("complete", () -> queues.complete(queue, refs.get(0))));
		outcomes.add(outcome("purge", () -> admin.purgeAllDead(queue)));
		outcomes.add(outcome("extend", () -> queues.extend(queue, refs.get(1), Duration.ofMinutes(2)).extended()));
		outcomes.add(outcome("enqueue", () -> queues.enqueue(queue, "late")));
		outcomes.add(outcome("reap", () -> admin.reapOnce(queue)));
		return outcomes;
	}

	private static String outcome(String what, Supplier<Object> call) {
		try {
			Object result = call.get();
			return what + ": " + result;
		}
		catch (DataAccessException ex) {
			return what + ": " + (QueueScriptExecutor.mentions(ex, "OOM") ? "OOM" : ex.toString());
		}
	}

	private static String counts(QueueAdmin admin, String queue) {
		return counts(admin.counts(queue));
	}

	private static String counts(QueueCounts counts) {
		return "ready " + counts.ready() + " in flight " + counts.inFlight() + " dead " + counts.dead() + " completed "
				+ counts.completed();
	}

	private static void maxmemory(LettuceConnectionFactory factory, String bytes) {
		try (RedisConnection connection = factory.getConnection()) {
			connection.serverCommands().setConfig("maxmemory", bytes);
		}
	}

}
