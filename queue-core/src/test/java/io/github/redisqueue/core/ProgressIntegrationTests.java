package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.script.DefaultRedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Progress of a job through the pull API: written under the lease only, read back by the admin
 * API, kept through a failure, cleared on completion and on a retry from the dead letters,
 * capped in size; a record written before the field existed still reads and runs.
 */
class ProgressIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration SHORT = Duration.ofMillis(150);

	private static final Duration LONG = Duration.ofMinutes(5);

	// rewrites a job's record as it was written before 'progress' was appended: without its last
	// position; returns the number of positions of the stored record
	@SuppressWarnings("rawtypes")
	private static final DefaultRedisScript<List> TRUNCATE = new DefaultRedisScript<>(QueueScripts.withPrelude("""
			local r = record(K_JOBS, ARGV[3])
			local old = {}
			for i = 1, J.progress - 1 do
			  old[i] = r[i]
			end
			redis.call('HSET', K_JOBS, ARGV[3], cmsgpack.pack(old))
			return {#cmsgpack.unpack(redis.call('HGET', K_JOBS, ARGV[3]))}
			"""), List.class);

	@SuppressWarnings("rawtypes")
	private static final DefaultRedisScript<List> POSITIONS = new DefaultRedisScript<>(QueueScripts.withPrelude("""
			return {#cmsgpack.unpack(redis.call('HGET', K_JOBS, ARGV[3]))}
			"""), List.class);

	@Test
	void holderWritesProgressReadBackUntilTheJobCompletes() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().completedRetention(Duration.ofHours(1)).build());
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("work", "hello").id();
		assertThat(admin.job("work", id).orElseThrow().progress()).isNull();
		ReservedJob job = queues.reserve("work", 1, LONG).get(0);

		assertThat(queues.progress("work", job.ref(), 42)).isTrue();
		assertThat(admin.job("work", id).orElseThrow().progress()).isEqualTo("42");
		assertThat(queues.progress("work", job.ref(), Map.of("done", 3, "of", 10))).isTrue();

		JobInfo info = admin.job("work", id).orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.ACTIVE);
		assertThat(info.progress()).contains("\"done\":3").contains("\"of\":10");
		assertThat(admin.jobs("work", JobState.ACTIVE, JobOrder.OLDEST_FIRST, 0, 10))
			.singleElement()
			.satisfies((listed) -> assertThat(listed.progress()).isEqualTo(info.progress()));
		assertThat(queues.complete("work", job.ref())).isEqualTo(AckResult.OK);
		JobInfo completed = admin.job("work", id).orElseThrow();
		assertThat(completed.state()).isEqualTo(JobState.COMPLETED);
		assertThat(completed.progress()).isNull();
	}

	@Test
	void nullClearsTheProgress() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("work", "hello").id();
		ReservedJob job = queues.reserve("work", 1, LONG).get(0);
		assertThat(queues.progress("work", job.ref(), "half")).isTrue();
		assertThat(admin.job("work", id).orElseThrow().progress()).isEqualTo("\"half\"");

		assertThat(queues.progress("work", job.ref(), null)).isTrue();

		assertThat(admin.job("work", id).orElseThrow().progress()).isNull();
	}

	@Test
	void staleHolderWritesNothing() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("work", "hello").id();
		ReservedJob stale = queues.reserve("work", 1, SHORT).get(0);
		assertThat(queues.progress("work", stale.ref(), 10)).isTrue();

		// the lease ran out and the job went back to ready: nobody holds it under that token
		await().atMost(Duration.ofSeconds(30)).until(() -> admin.reapOnce("work").reclaimed() == 1);
		assertThat(queues.progress("work", stale.ref(), 20)).isFalse();
		JobInfo back = admin.job("work", id).orElseThrow();
		assertThat(back.state()).isEqualTo(JobState.READY);
		assertThat(back.progress()).isEqualTo("10");

		// and once someone else holds it
		ReservedJob current = queues.reserve("work", 1, LONG).get(0);
		assertThat(current.id()).isEqualTo(id);
		assertThat(queues.progress("work", stale.ref(), 30)).isFalse();
		assertThat(admin.job("work", id).orElseThrow().progress()).isEqualTo("10");
		assertThat(queues.progress("work", current.ref(), 40)).isTrue();
		assertThat(admin.job("work", id).orElseThrow().progress()).isEqualTo("40");

		// and once the job is gone
		assertThat(queues.complete("work", current.ref())).isEqualTo(AckResult.OK);
		assertThat(queues.progress("work", current.ref(), 50)).isFalse();
		assertThat(admin.job("work", id)).isEmpty();
	}

	@Test
	void progressLargerThanTheCapIsRefusedAndNothingWritten() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("work", "hello").id();
		ReservedJob job = queues.reserve("work", 1, LONG).get(0);
		// a JSON string of n characters is n + 2 bytes
		String largest = "x".repeat(QueueOperations.MAX_PROGRESS_SIZE - 2);
		assertThat(queues.progress("work", job.ref(), largest)).isTrue();
		assertThat(admin.job("work", id).orElseThrow().progress()).hasSize(QueueOperations.MAX_PROGRESS_SIZE);

		assertThatIllegalArgumentException().isThrownBy(() -> queues.progress("work", job.ref(), largest + "x"))
			.withMessage("Progress of job " + id + " of queue 'work' has 4097 bytes serialized: it must have at most 4096");

		assertThat(admin.job("work", id).orElseThrow().progress()).hasSize(QueueOperations.MAX_PROGRESS_SIZE);
	}

	@Test
	void progressIsKeptThroughAFailureAndClearedWhenADeadJobIsRetried() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("work", "hello", JobOptions.builder().maxAttempts(2).build()).id();
		ReservedJob first = queues.reserve("work", 1, LONG).get(0);
		assertThat(queues.progress("work", first.ref(), 30)).isTrue();
		assertThat(queues.retry("work", first.ref(), "broke", Duration.ZERO)).isEqualTo(FailResult.RETRY_SCHEDULED);
		assertThat(admin.job("work", id).orElseThrow().progress()).isEqualTo("30");

		ReservedJob second = queues.reserve("work", 1, LONG).get(0);
		assertThat(queues.progress("work", second.ref(), 70)).isTrue();
		assertThat(queues.retry("work", second.ref(), "broke again", Duration.ZERO))
			.isEqualTo(FailResult.DEAD_LETTERED);
		JobInfo dead = admin.job("work", id).orElseThrow();
		assertThat(dead.state()).isEqualTo(JobState.DEAD);
		assertThat(dead.progress()).isEqualTo("70");

		assertThat(admin.retryDead("work", id)).isTrue();

		JobInfo retried = admin.job("work", id).orElseThrow();
		assertThat(retried.state()).isEqualTo(JobState.READY);
		assertThat(retried.progress()).isNull();
	}

	@Test
	void progressOfAJobOfAPartitionedQueueReachesItsPartition() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().partitions("parts", 3).build());
		QueueAdmin admin = new QueueAdmin(queues);
		for (int i = 0; i < 3; i++) {
			queues.enqueue("parts", "job-" + i);
		}
		List<ReservedJob> jobs = queues.reserve("parts", 3, LONG);
		assertThat(jobs).hasSize(3);

		for (ReservedJob job : jobs) {
			assertThat(queues.progress("parts", job.ref(), "at " + job.id())).isTrue();
		}

		for (ReservedJob job : jobs) {
			assertThat(admin.job("parts", job.id()).orElseThrow().progress()).isEqualTo("\"at " + job.id() + "\"");
		}
	}

	@Test
	void recordWrittenWithoutTheProgressFieldReadsAndRuns() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		// a priority gives the job its record at once (a plain job has none until reserved)
		String id = queues.enqueue("work", "hello", JobOptions.builder().priority(5).header("tenant", "acme").build())
			.id();
		List<String> keys = queues.keys("work")
			.scriptKeys()
			.stream()
			.map((key) -> new String(key, StandardCharsets.UTF_8))
			.toList();
		assertThat(this.redis.execute(TRUNCATE, keys, "", "", id)).containsExactly(24L);

		JobInfo info = admin.job("work", id).orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.READY);
		assertThat(info.priority()).isEqualTo(5);
		assertThat(info.headers()).containsEntry("tenant", "acme");
		assertThat(info.payloadAsString()).isEqualTo("\"hello\"");
		assertThat(info.progress()).isNull();
		ReservedJob job = queues.reserve("work", 1, LONG).get(0);
		assertThat(job.id()).isEqualTo(id);
		assertThat(job.attempt()).isEqualTo(1);
		// rewritten with every field of today's records
		assertThat(this.redis.execute(POSITIONS, keys, "", "", id)).containsExactly(26L);
		assertThat(queues.progress("work", job.ref(), 5)).isTrue();
		assertThat(admin.job("work", id).orElseThrow().progress()).isEqualTo("5");
		assertThat(queues.complete("work", job.ref())).isEqualTo(AckResult.OK);
		assertThat(admin.job("work", id)).isEmpty();
	}

}
