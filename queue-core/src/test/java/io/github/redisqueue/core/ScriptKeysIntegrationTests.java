package io.github.redisqueue.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.script.DefaultRedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Every script touches only the keys it is given in KEYS. The test run sets
 * {@link QueueScripts#CHECK_KEYS_PROPERTY}, so every script call of every test goes through the
 * check of {@code keycheck.lua}; these tests show that the check is on and that it refuses an
 * undeclared key.
 */
class ScriptKeysIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void theSuiteRunsEveryScriptWithTheKeyCheck() {
		assertThat(System.getProperty(QueueScripts.CHECK_KEYS_PROPERTY)).isEqualTo("true");
		String check = read("keycheck");
		assertThat(new QueueScripts().all()).allSatisfy((script) -> assertThat(script.getScriptAsString()).startsWith(check));
	}

	@Test
	void theKeyCheckRefusesAKeyNotGivenInKeys() {
		String check = read("keycheck") + "\n";
		DefaultRedisScript<Long> declared = new DefaultRedisScript<>(check
				+ "redis.call('SET', KEYS[1], 'v') return redis.call('EXISTS', KEYS[1])", Long.class);
		assertThat(this.redis.execute(declared, List.of("{t}:a"))).isEqualTo(1L);

		DefaultRedisScript<Long> undeclared = new DefaultRedisScript<>(check
				+ "return redis.call('HGET', KEYS[1] .. ':job:' .. ARGV[1], 'state') and 1 or 0", Long.class);
		assertThatException().isThrownBy(() -> this.redis.execute(undeclared, List.of("{t}:a"), "7"))
			.withStackTraceContaining("script touched key {t}:a:job:7 (HGET) not given in KEYS");
		DefaultRedisScript<Long> partlyDeclared = new DefaultRedisScript<>(check
				+ "return redis.call('DEL', KEYS[1], '{t}:b')", Long.class);
		assertThatException().isThrownBy(() -> this.redis.execute(partlyDeclared, List.of("{t}:a")))
			.withStackTraceContaining("script touched key {t}:b (DEL) not given in KEYS");
	}

	@Test
	void aWorkloadThroughEveryScriptPassesTheCheck() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		Duration lease = Duration.ofMinutes(1);
		queues.enqueue("keys", "a", JobOptions.builder().uniqueKey("u").uniqueFor(Duration.ofMinutes(1)).build());
		queues.enqueue("keys", "b", JobOptions.builder().idempotencyKey("i").group("g").build());
		queues.enqueue("keys", "c", JobOptions.builder().delay(Duration.ofMillis(1)).build());
		Batch batch = queues.batch("keys").maxConcurrency(1).onComplete("keys-done").addAll(List.of(1, 2)).submit();
		admin.heartbeat(new WorkerInfo("w1", "host", List.of("keys"), 0, null, null), Duration.ofSeconds(30));
		List<ReservedJob> jobs = queues.reserve("keys", 10, lease);
		assertThat(jobs).isNotEmpty();
		queues.extend("keys", jobs.get(0).ref(), lease);
		assertThat(queues.progress("keys", jobs.get(0).ref(), 50)).isTrue();
		queues.deadLetter("keys", jobs.get(0).ref(), "boom");
		queues.release("keys", jobs.get(1).ref());
		queues.completeAll("keys", jobs.subList(2, jobs.size()).stream().map(ReservedJob::ref).toList());
		admin.retryAllDead("keys");
		admin.reapOnce();
		admin.counts("keys");
		admin.job("keys", jobs.get(0).id());
		admin.deadLetters("keys", 0, 10);
		for (JobState state : List.of(JobState.READY, JobState.DELAYED, JobState.ACTIVE, JobState.DEAD)) {
			admin.jobs("keys", state, JobOrder.NEWEST_FIRST, 0, 10);
		}
		String delayed = queues.enqueue("keys", "d", JobOptions.builder().delay(Duration.ofHours(1)).build()).id();
		admin.promote("keys", delayed);
		admin.deleteJob("keys", delayed);
		admin.deleteJob("keys", queues.enqueue("keys", "e").id());
		admin.workers();
		admin.silentWorkers();
		batch.status();
		batch.cancel();
		assertThat(batch.completion().get(10, java.util.concurrent.TimeUnit.SECONDS).state()).isEqualTo(BatchState.CANCELLED);
		admin.leave(new WorkerInfo("w1", "host", List.of("keys"), 0, null, null));
		QueueSchedules schedules = new QueueSchedules(queues);
		java.time.Instant tick = schedules.peek("keys", "s").serverTime();
		schedules.pass("keys", "s", tick.minusSeconds(2));
		schedules.fire("keys", "s", tick, tick.minusSeconds(1), MissedTicks.FIRE_ONCE, Duration.ofSeconds(10),
				"\"s\"".getBytes(StandardCharsets.UTF_8));
	}

	private static String read(String name) {
		try (InputStream in = QueueScripts.class.getClassLoader()
			.getResourceAsStream("io/github/redisqueue/scripts/" + name + ".lua")) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
