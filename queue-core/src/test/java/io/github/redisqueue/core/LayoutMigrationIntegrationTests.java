package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redisqueue.core.script.LayoutMigration;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueScriptExecutor;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.QueueListenerContainer;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.script.DefaultRedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Data written by layout 4 (a job's payload inside its record, a batch's completion payload inside
 * its gate record) keeps working once the current library opens it: the first use migrates it in
 * short calls, instances that migrate at once move each record once, and a layout-4 record written
 * after the migration is still read.
 */
class LayoutMigrationIntegrationTests extends AbstractRedisIntegrationTests {

	private static final String QUEUE = "legacy";

	private static final Duration LEASE = Duration.ofMinutes(1);

	/**
	 * Writes a job record as layout 4 did: 25 positions (24 with ARGV[7] = '24', written before
	 * 'progress' was appended), the payload at position 24. ARGV[3] id, [4] state, [5] index
	 * ('ready', 'dead' or 'done'), [6] payload.
	 */
	private static final DefaultRedisScript<Long> LAYOUT4_JOB = new DefaultRedisScript<>(QueueScripts.withPrelude("""
			local id, state, index, payload = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
			local now = now_ms()
			local score = ready_score(0, tonumber(id))
			local t = {state, '', '0', score, '0', '3', '0', num(now), '0', '0', '0', false, false, false, false, false,
			  false, false, false, false, false, false, false, payload, false}
			if index == 'dead' then
			  t[12], t[23] = num(now), 'failed'
			  redis.call('ZADD', K_DEAD, now, id)
			elseif index == 'done' then
			  t[12], t[5], t[7] = num(now), '1', '1'
			  redis.call('ZADD', K_DONE, now, id)
			else
			  redis.call('ZADD', K_READY, score, id)
			end
			if ARGV[7] == '24' then
			  t[25] = nil
			end
			redis.call('HSET', K_JOBS, id, cmsgpack.pack(t))
			redis.call('SET', K_SEQ, id)
			return 1
			"""), Long.class);

	/** Writes an open batch's gate record as layout 4 did, its completion payload ARGV[4] inside it. */
	private static final DefaultRedisScript<Long> LAYOUT4_BATCH = new DefaultRedisScript<>(QueueScripts.withPrelude("""
			local now = now_ms()
			local t = {'open', '10', '0', '0', '0', '0', '0', '0', '0', num(now), '0', 'done-queue', ARGV[4], '60000',
			  '3', '', false}
			redis.call('HSET', K_GATES, gate_id('b', ARGV[3]), cmsgpack.pack(t))
			redis.call('ZADD', K_BATCHES, now, ARGV[3])
			return 1
			"""), Long.class);

	private final QueueKeys keys = new QueueKeys("rq", QUEUE);

	private List<String> keyNames() {
		return this.keys.scriptKeys().stream().map((key) -> new String(key, StandardCharsets.UTF_8)).toList();
	}

	private void layout4Job(long id, String state, String index, String payload, boolean withProgress) {
		this.redis.execute(LAYOUT4_JOB, keyNames(), "", "", Long.toString(id), state, index, payload,
				withProgress ? "25" : "24");
	}

	/** A prefix written by layout 4, with the queue in its registry. */
	private void layout4Prefix() {
		this.redis.opsForValue().set("rq:layout", "4");
		this.redis.opsForSet().add("rq:queues", QUEUE);
	}

	private boolean hasOwnPayloadField(String id) {
		return this.redis.opsForHash().hasKey(this.keys.key("jobs"), id + ":p");
	}

	@Test
	void aQueueOfLayoutFourRunsItsJobsAndShowsItsDeadAndCompletedOnesAfterTheMigration() {
		layout4Prefix();
		layout4Job(1, "ready", "ready", "\"one\"", true);
		layout4Job(2, "ready", "ready", "\"two\"", false);
		layout4Job(3, "dead", "dead", "\"three\"", true);
		layout4Job(4, "completed", "done", "\"four\"", true);
		this.redis.execute(LAYOUT4_BATCH, keyNames(), "", "", "b1", "{\"report\":1}");
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);

		// the first enqueue registers the queue: the prefix is migrated then
		String five = queues.enqueue(QUEUE, "five").id();

		assertThat(Long.parseLong(five)).isGreaterThan(4);
		assertThat(admin.counts(QUEUE).ready()).isEqualTo(3);

		assertThat(this.redis.opsForValue().get("rq:layout")).isEqualTo("5");
		assertThat(List.of("1", "2", "3", "4")).allSatisfy((id) -> assertThat(hasOwnPayloadField(id)).isTrue());
		assertThat(new JobRecords(this.redis, queues, QUEUE).fields("3")).containsEntry("error", "failed")
			.doesNotContainKey("inlinePayload");
		assertThat(this.redis.opsForHash().hasKey(this.keys.key("gates"), "b2:b1:c")).isTrue();
		assertThat(admin.deadLetters(QUEUE, 0, 10)).singleElement()
			.satisfies((dead) -> assertThat(dead.payloadAsString()).isEqualTo("\"three\""));
		assertThat(admin.job(QUEUE, "4")).hasValueSatisfying(
				(job) -> assertThat(job.payloadAsString()).isEqualTo("\"four\""));
		assertThat(admin.batches(QUEUE, 0, 10)).singleElement()
			.satisfies((batch) -> assertThat(batch.id()).isEqualTo("b1"));
		List<ReservedJob> reserved = queues.reserve(QUEUE, 10, LEASE);
		assertThat(reserved).extracting(ReservedJob::payloadAsString)
			.containsExactly("\"one\"", "\"two\"", "\"five\"");
		assertThat(queues.completeAll(QUEUE, reserved.stream().map(ReservedJob::ref).toList()))
			.containsOnly(AckResult.OK);
	}

	// two instances that only run workers (no enqueue, batch or schedule), started at once: the
	// first reserve of each opens the prefix, and the migration moves the jobs no worker touches too
	@Test
	void workerOnlyInstancesOpeningAPrefixOfLayoutFourMigrateIt() {
		layout4Prefix();
		for (int id = 1; id <= 200; id++) {
			layout4Job(id, "ready", "ready", "\"" + id + "\"", id % 2 == 0);
		}
		layout4Job(201, "dead", "dead", "\"dead\"", true);
		this.redis.execute(LAYOUT4_BATCH, keyNames(), "", "", "b1", "{\"report\":1}");
		List<String> handled = new CopyOnWriteArrayList<>();
		List<QueueListenerContainer> containers = new ArrayList<>();
		for (int instance = 0; instance < 2; instance++) {
			containers.add(new QueueListenerContainer("legacy-worker-" + instance, QUEUE,
					new QueueTemplate(this.connectionFactory), (job, ack) -> handled.add(job.payloadAsString()),
					ContainerOptions.builder().pollInterval(Duration.ofMillis(100)).build(), null, null));
		}
		try {
			containers.forEach(QueueListenerContainer::start);
			await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() >= 200);
		}
		finally {
			containers.forEach(QueueListenerContainer::stop);
		}

		assertThat(handled).hasSize(200).doesNotHaveDuplicates();
		assertThat(this.redis.opsForValue().get("rq:layout")).isEqualTo("5");
		assertThat(hasOwnPayloadField("201")).as("the dead job's payload moved out of its record").isTrue();
		assertThat(new JobRecords(this.redis, new QueueTemplate(this.connectionFactory), QUEUE).fields("201"))
			.doesNotContainKey("inlinePayload");
		assertThat(this.redis.opsForHash().hasKey(this.keys.key("gates"), "b2:b1:c")).isTrue();
		assertThat(this.redis.opsForSet().members("rq:queues")).containsExactly(QUEUE);
	}

	// an operator's first look at the queue opens the prefix too
	@Test
	void anAdminOnlyInstanceOpeningAPrefixOfLayoutFourMigratesIt() {
		layout4Prefix();
		layout4Job(1, "dead", "dead", "\"one\"", true);

		assertThat(new QueueAdmin(new QueueTemplate(this.connectionFactory)).counts(QUEUE).dead()).isEqualTo(1);

		assertThat(this.redis.opsForValue().get("rq:layout")).isEqualTo("5");
		assertThat(hasOwnPayloadField("1")).isTrue();
	}

	// opening does not write a layout where there is none: a queue's first registration does
	@Test
	void openingAnEmptyPrefixWritesNoLayout() {
		new QueueAdmin(new QueueTemplate(this.connectionFactory)).counts(QUEUE);

		assertThat(this.redis.hasKey("rq:layout")).isFalse();
	}

	@Test
	void twoInstancesMigratingAtOnceMoveEachRecordOnce() throws Exception {
		layout4Prefix();
		String payload = "\"" + "y".repeat(5_000) + "\"";
		for (int id = 1; id <= 300; id++) {
			layout4Job(id, "ready", "ready", payload, id % 2 == 0);
		}
		QueueScriptExecutor one = new QueueTemplate(this.connectionFactory).executor();
		QueueScriptExecutor two = new QueueTemplate(this.connectionFactory).executor();

		CompletableFuture<Long> first = CompletableFuture.supplyAsync(() -> new LayoutMigration(one, "rq").run());
		CompletableFuture<Long> second = CompletableFuture.supplyAsync(() -> new LayoutMigration(two, "rq").run());

		assertThat(first.get() + second.get()).isEqualTo(300);
		assertThat(new LayoutMigration(one, "rq").run()).isZero();
		this.redis.opsForValue().set("rq:layout", "5");
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		List<ReservedJob> all = new ArrayList<>();
		for (int call = 0; call < 300 && all.size() < 300; call++) {
			all.addAll(queues.reserve(QUEUE, 100, LEASE));
		}
		assertThat(all).hasSize(300).allSatisfy((job) -> assertThat(job.payloadAsString()).isEqualTo(payload));
	}

	@Test
	void aLayoutFourRecordWrittenAfterTheMigrationIsStillRead() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().build());
		queues.enqueue(QUEUE, "new");
		// a layout-4 instance still running writes a record the old way
		layout4Job(100, "ready", "ready", "\"old\"", true);

		List<ReservedJob> reserved = queues.reserve(QUEUE, 10, LEASE);

		assertThat(reserved).extracting(ReservedJob::payloadAsString).containsExactly("\"new\"", "\"old\"");
		// its payload got a field of its own when the reserve wrote the record
		assertThat(hasOwnPayloadField("100")).isTrue();
		assertThat(new QueueAdmin(queues).job(QUEUE, "100")).hasValueSatisfying(
				(job) -> assertThat(job.payloadAsString()).isEqualTo("\"old\""));
	}

}
