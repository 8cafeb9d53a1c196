package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.QueueListenerContainer;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A payload of more than 4 KB is kept out of the scripts' Lua strings: the enqueue gives such a
 * job a record (its payload in its own field) at the place a plain job would have in ready, and
 * the reserve hands it out by its length, the template reading the payloads with one
 * {@code HMGET}. These tests show that such jobs come whole and in order among plain ones, by
 * every reserve path (a queue of one partition, a partitioned one, a listener container), that
 * the reserve reads none of those payloads, and that they weigh less against a call's payload
 * budget, so one call takes many.
 */
class ApartPayloadIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final String QUEUE = "apart";

	/** The payload lengths around the bound (the serializer adds two quotes). */
	private static final List<Integer> LENGTHS = List.of(10, 5_000, 4_094, 4_095, 10, 20_000, 70_000, 0);

	@Test
	void largePayloadsGetARecordAndComeWholeInEnqueueOrderAmongPlainJobs() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		List<String> payloads = LENGTHS.stream().map("y"::repeat).toList();
		List<String> ids = queues.enqueueAll(QUEUE, payloads, JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();

		// 4,094 + 2 quotes is 4,096 bytes: plain; 4,095 + 2 is over the bound
		assertThat(this.redis.opsForList().size(queues.keys(QUEUE).key("ready:plain"))).isEqualTo(4);
		JobRecords records = new JobRecords(this.redis, queues, QUEUE);
		assertThat(records.count()).isEqualTo(4);
		assertThat(records.fields(ids.get(1))).containsEntry("state", "ready").containsEntry("priority", "0");
		QueueAdmin admin = new QueueAdmin(queues);
		assertThat(admin.counts(QUEUE).ready()).isEqualTo(8);
		assertThat(admin.job(QUEUE, ids.get(5))).hasValueSatisfying(
				(info) -> assertThat(info.payloadAsString()).isEqualTo('"' + payloads.get(5) + '"'));

		List<ReservedJob> jobs = reserveInCalls(queues, QUEUE, payloads.size(), LEASE);

		assertThat(jobs).extracting(ReservedJob::id).containsExactlyElementsOf(ids);
		assertThat(jobs).extracting(ReservedJob::payloadAsString)
			.containsExactlyElementsOf(payloads.stream().map((p) -> '"' + p + '"').toList());
		for (ReservedJob job : jobs) {
			assertThat(queues.complete(QUEUE, job.ref())).isEqualTo(AckResult.OK);
		}
		assertThat(records.count()).isZero();
		assertThat(admin.counts(QUEUE).total("completed")).isEqualTo(8);
	}

	@Test
	void theReserveReadsNoneOfThePayloadsItHandsOutByTheirLength() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		// a reserve of small jobs first: what a call reads besides the jobs' records and payloads
		queues.enqueueAll(QUEUE, List.of("a", "b", "c"), JobOptions.defaults());
		queues.enqueueAll("apart2", List.of("a", "b", "c"), JobOptions.builder().priority(1).build());
		long hget = commandCalls("hget");
		long hmget = commandCalls("hmget");
		assertThat(queues.reserve("apart2", 3, LEASE)).hasSize(3);
		long hgetSmall = commandCalls("hget") - hget;
		long hmgetSmall = commandCalls("hmget") - hmget;
		queues.enqueueAll(QUEUE + "3", List.of("a".repeat(10_000), "b".repeat(10_000), "c".repeat(10_000)),
				JobOptions.builder().priority(1).build());
		hget = commandCalls("hget");
		hmget = commandCalls("hmget");

		List<ReservedJob> jobs = queues.reserve(QUEUE + "3", 3, LEASE);

		assertThat(jobs).extracting((job) -> job.payload().length).containsExactly(10_002, 10_002, 10_002);
		// small jobs with records: each record and payload read (HGET); large ones: the records only,
		// and their payloads in one HMGET of the template's
		assertThat(hgetSmall).isEqualTo(6);
		assertThat(commandCalls("hget") - hget).isEqualTo(3);
		assertThat(commandCalls("hmget") - hmget).isEqualTo(hmgetSmall + 1);
	}

	@Test
	void largeJobsOfEveryKindComeWhole() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		String big = "k".repeat(7_000);
		String priority = queues.enqueue(QUEUE, big + "p", JobOptions.builder().priority(3).build()).id();
		String unique = queues.enqueue(QUEUE, big + "u", JobOptions.builder().uniqueKey("u1").build()).id();
		String delayed = queues.enqueue(QUEUE, big + "d", JobOptions.builder().delay(Duration.ofMillis(1)).build())
			.id();
		queues.batch(QUEUE).addAll(List.of(big + "b1", big + "b2")).submit();

		Map<String, String> got = new ConcurrentHashMap<>();
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			queues.reserve(QUEUE, 10, LEASE).forEach((job) -> got.put(job.id(), job.payloadAsString()));
			return got.size() == 5;
		});

		assertThat(got).containsEntry(priority, '"' + big + "p\"")
			.containsEntry(unique, '"' + big + "u\"")
			.containsEntry(delayed, '"' + big + "d\"");
		assertThat(got.values()).contains('"' + big + "b1\"", '"' + big + "b2\"");
	}

	@Test
	void aRecurringJobsLargePayloadIsKeptApartAndComesInTickOrderAmongPlainJobs() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueSchedules schedules = new QueueSchedules(queues);
		String big = "t".repeat(6_000);
		byte[] payload = queues.getSerializer().serialize(big);
		Instant now = schedules.peek(QUEUE, "report").serverTime();
		Instant first = now.minusSeconds(3);
		Instant missed = now.minusSeconds(2);
		Instant tick = now.minusMillis(100);
		String before = queues.enqueue(QUEUE, "before").id();
		String initial = schedules.fire(QUEUE, "report", first, null, MissedTicks.FIRE_ONCE, Duration.ofHours(1), payload)
			.jobs()
			.get(first);

		// the missed tick's job and the tick's own, one call
		ScheduleFiring firing = schedules.fire(QUEUE, "report", tick, missed, MissedTicks.FIRE_ONCE, Duration.ofHours(1),
				payload);
		String after = queues.enqueue(QUEUE, "after").id();

		assertThat(firing.jobs()).containsOnlyKeys(missed, tick);
		// only the two small jobs are elements of the plain list: no script reads the large payloads
		assertThat(this.redis.opsForList().size(queues.keys(QUEUE).key("ready:plain"))).isEqualTo(2);
		assertThat(new JobRecords(this.redis, queues, QUEUE).count()).isEqualTo(3);
		List<ReservedJob> jobs = reserveInCalls(queues, QUEUE, 5, LEASE);
		assertThat(jobs).extracting(ReservedJob::id)
			.containsExactly(before, initial, firing.jobs().get(missed),
					firing.jobs().get(tick), after)
			.doesNotHaveDuplicates();
		assertThat(jobs.subList(1, 4)).allSatisfy((job) -> {
			assertThat(job.payload()).isEqualTo(payload);
			assertThat(job.headers()).containsEntry(QueueSchedules.SCHEDULE_HEADER, "report");
		});
		assertThat(jobs.get(2).headers()).containsEntry(QueueSchedules.TICK_HEADER, missed.toString());
		assertThat(jobs.get(3).headers()).containsEntry(QueueSchedules.TICK_HEADER, tick.toString());
	}

	@Test
	void oneReserveTakesManyLargeJobsWhereItTookSix() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueueAll(QUEUE, Collections.nCopies(50, "z".repeat(10_000)), JobOptions.defaults());

		// 50 x 10 KB is 500 KB of payloads, over the 64 KB a call may read, but these weigh a
		// sixteenth: one call takes them all
		assertThat(queues.reserve(QUEUE, 50, LEASE)).hasSize(50);
	}

	@Test
	void aFailedLargeJobIsHandedOutWholeAgain() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		String payload = "r".repeat(8_000);
		String id = queues.enqueue(QUEUE, payload).id();
		ReservedJob first = queues.reserve(QUEUE, 1, LEASE).get(0);

		assertThat(queues.retry(QUEUE, first.ref(), "try again", Duration.ZERO)).isEqualTo(FailResult.RETRY_SCHEDULED);

		ReservedJob again = await().atMost(Duration.ofSeconds(10))
			.until(() -> queues.reserve(QUEUE, 1, LEASE), (got) -> !got.isEmpty())
			.get(0);
		assertThat(again.id()).isEqualTo(id);
		assertThat(again.attempt()).isEqualTo(2);
		assertThat(again.payloadAsString()).isEqualTo('"' + payload + '"');
	}

	@Test
	void aPartitionedQueueHandsOutLargePayloadsFromEachPartition() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().partitions(QUEUE, 3).build());
		List<String> payloads = List.of("p".repeat(6_000), "q".repeat(6_000), "s".repeat(6_000), "t", "u".repeat(9_000),
				"v".repeat(5_000));
		List<String> ids = queues.enqueueAll(QUEUE, payloads, JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();

		Map<String, String> got = new ConcurrentHashMap<>();
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			queues.reserve(QUEUE, 6, LEASE).forEach((job) -> got.put(job.id(), job.payloadAsString()));
			return got.size() == payloads.size();
		});

		for (int i = 0; i < ids.size(); i++) {
			assertThat(got).containsEntry(ids.get(i), '"' + payloads.get(i) + '"');
		}
	}

	@Test
	void aListenerContainerRunsLargeJobsWithTheirPayloads() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		Map<String, Integer> lengths = new ConcurrentHashMap<>();
		QueueListenerContainer container = new QueueListenerContainer("apart", QUEUE, queues,
				(job, ack) -> lengths.put(job.id(), job.payload().length),
				ContainerOptions.builder().concurrency(2).build(), null, null);
		container.start();
		try {
			List<String> ids = new ArrayList<>();
			for (int i = 0; i < 20; i++) {
				ids.add(queues.enqueue(QUEUE, "L".repeat((i % 2 == 0) ? 12_000 : 100)).id());
			}

			await().atMost(Duration.ofSeconds(30)).until(() -> lengths.size() == ids.size());
			for (int i = 0; i < ids.size(); i++) {
				assertThat(lengths).containsEntry(ids.get(i), (i % 2 == 0) ? 12_002 : 102);
			}
			await().atMost(Duration.ofSeconds(30))
				.until(() -> new QueueAdmin(queues).counts(QUEUE).total("completed") == ids.size());
		}
		finally {
			container.stop();
		}
	}

}
