package io.github.redisqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Plain jobs (layout 4): a ready job of the default priority without uniqueness, idempotency,
 * group, expiry or delay is one element of the queue's plain list until it is reserved. These
 * tests show that it is still found by id, keeps its place among jobs that have records, comes
 * back to its place when its lease is lost, and that a damaged element is dead-lettered with the
 * reason instead of being dropped.
 */
class PlainJobIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final String QUEUE = "plain";

	@Test
	void aPlainJobHasNoRecordUntilReservedAndIsFoundById() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue(QUEUE, "hello").id();
		JobRecords records = new JobRecords(this.redis, queues, QUEUE);

		assertThat(records.count()).isZero();
		assertThat(this.redis.opsForList().size(queues.keys(QUEUE).key("ready:plain"))).isEqualTo(1);
		assertThat(admin.counts(QUEUE).ready()).isEqualTo(1);
		assertThat(admin.job(QUEUE, id)).hasValueSatisfying((info) -> {
			assertThat(info.state()).isEqualTo(JobState.READY);
			assertThat(info.payloadAsString()).isEqualTo("\"hello\"");
			assertThat(info.attempts()).isZero();
			assertThat(info.maxAttempts()).isEqualTo(3);
		});

		ReservedJob job = queues.reserve(QUEUE, 1, LEASE).get(0);

		assertThat(job.id()).isEqualTo(id);
		assertThat(job.payloadAsString()).isEqualTo("\"hello\"");
		assertThat(job.attempt()).isEqualTo(1);
		assertThat(records.fields(id)).containsEntry("state", "active");
		assertThat(this.redis.opsForList().size(queues.keys(QUEUE).key("ready:plain"))).isZero();
		assertThat(queues.complete(QUEUE, job.ref())).isEqualTo(AckResult.OK);
		assertThat(records.count()).isZero();
	}

	@Test
	void aReserveWritesTheRecordOfEachPlainJobItHandsOutOnce() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		List<String> ids = queues.enqueueAll(QUEUE, IntStream.range(0, 20).boxed().toList(),
				JobOptions.defaults()).stream().map(EnqueueResult::id).toList();
		long before = commandCalls("hset");

		List<ReservedJob> jobs = queues.reserve(QUEUE, 20, LEASE);

		assertThat(jobs).extracting(ReservedJob::id).containsExactlyElementsOf(ids);
		// the records, payloads and marks of all the jobs in one HSET (it was two per job, then one
		// per job), and a few of the call's own
		assertThat(commandCalls("hset") - before).isBetween(1L, 4L);
		JobRecords records = new JobRecords(this.redis, queues, QUEUE);
		for (String id : ids) {
			assertThat(records.fields(id)).containsEntry("state", "active").containsEntry("attempts", "0");
		}
		assertThat(queues.complete(QUEUE, jobs.get(19).ref())).isEqualTo(AckResult.OK);
	}

	@Test
	void plainJobsOfEveryPayloadLengthAreHandedOutWhole() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		// each length takes another MessagePack string header: 1 byte up to 31, 2 up to 255, 3 up
		// to 65,535, 5 beyond
		List<String> payloads = IntStream.of(0, 29, 30, 253, 254, 65_533, 65_534, 70_000)
			.mapToObj((n) -> "x".repeat(n))
			.toList();
		List<String> ids = queues.enqueueAll(QUEUE, payloads, JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();

		List<ReservedJob> jobs = reserveInCalls(queues, QUEUE, payloads.size(), LEASE);

		assertThat(jobs).extracting(ReservedJob::id).containsExactlyElementsOf(ids);
		assertThat(jobs).extracting(ReservedJob::payloadAsString)
			.containsExactlyElementsOf(payloads.stream().map((p) -> '"' + p + '"').toList());
		assertThat(new QueueAdmin(queues).counts(QUEUE).dead()).isZero();
	}

	@Test
	void everyJobOfALongPlainListIsFoundByIdAndNoOtherIs() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = queues.enqueueAll(QUEUE, IntStream.range(0, 3_000).boxed().toList(), JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();
		// some jobs from the head leave the list, so the search does not start at id 1
		queues.reserve(QUEUE, 7, LEASE);

		for (int i = 7; i < ids.size(); i += 331) {
			int index = i;
			assertThat(admin.job(QUEUE, ids.get(i))).hasValueSatisfying((info) -> {
				assertThat(info.state()).isEqualTo(JobState.READY);
				assertThat(info.payloadAsString()).isEqualTo(Integer.toString(index));
			});
		}
		assertThat(admin.job(QUEUE, ids.get(ids.size() - 1))).isPresent();
		assertThat(admin.job(QUEUE, ids.get(0))).hasValueSatisfying(
				(info) -> assertThat(info.state()).isEqualTo(JobState.ACTIVE));
		assertThat(admin.job(QUEUE, "3001")).isEmpty();
		assertThat(admin.job(QUEUE, "0")).isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> admin.job(QUEUE, "not-an-id"))
			.withMessageContaining("Job id 'not-an-id' is invalid");
	}

	@Test
	void plainJobsAndJobsWithRecordsComeOutInPriorityThenEnqueueOrder() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		String a = queues.enqueue(QUEUE, "a").id();
		String b = queues.enqueue(QUEUE, "b", JobOptions.builder().uniqueKey("b").build()).id();
		String c = queues.enqueue(QUEUE, "c").id();
		String d = queues.enqueue(QUEUE, "d", JobOptions.builder().priority(5).build()).id();
		String e = queues.enqueue(QUEUE, "e", JobOptions.builder().priority(-5).build()).id();
		String f = queues.enqueue(QUEUE, "f", JobOptions.builder().expireAfter(Duration.ofHours(1)).build()).id();
		String g = queues.enqueue(QUEUE, "g").id();

		// one at a time and several at once take the same order
		assertThat(queues.reserve(QUEUE, 1, LEASE)).extracting(ReservedJob::id).containsExactly(d);
		assertThat(queues.reserve(QUEUE, 2, LEASE)).extracting(ReservedJob::id).containsExactly(a, b);
		assertThat(queues.reserve(QUEUE, 10, LEASE)).extracting(ReservedJob::id).containsExactly(c, f, g, e);
	}

	@Test
	void aPlainJobWhoseLeaseRanOutGoesBackToItsPlace() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = queues.enqueueAll(QUEUE, List.of("1", "2", "3", "4"), JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();
		assertThat(queues.reserve(QUEUE, 2, Duration.ofMillis(50))).hasSize(2);

		await().atMost(Duration.ofSeconds(30)).until(() -> {
			admin.reapOnce(QUEUE);
			return admin.counts(QUEUE).inFlight() == 0;
		});

		List<ReservedJob> again = queues.reserve(QUEUE, 10, LEASE);
		assertThat(again).extracting(ReservedJob::id).containsExactlyElementsOf(ids);
		assertThat(again).extracting(ReservedJob::attempt).containsExactly(1, 1, 1, 1);
		assertThat(again).extracting(ReservedJob::token).containsExactly(2L, 2L, 1L, 1L);
	}

	@Test
	void damagedPlainElementsAreDeadLetteredWithTheReasonAndTheOthersHandedOut() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = queues.enqueueAll(QUEUE, List.of("1", "2", "3", "4", "5"), JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();
		JobRecords records = new JobRecords(this.redis, queues, QUEUE);
		assertThat(records.element(ids.get(1), ids.get(1) + ":not msgpack")).isTrue();
		assertThat(records.plainField(ids.get(3), 2, "x")).isTrue();

		// two at a time, so that a damaged element is popped in the same call as a healthy one
		List<String> handedOut = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			queues.reserve(QUEUE, 2, LEASE).forEach((job) -> {
				handedOut.add(job.id());
				assertThat(queues.complete(QUEUE, job.ref())).isEqualTo(AckResult.OK);
			});
		}

		assertThat(handedOut).containsExactly(ids.get(0), ids.get(2), ids.get(4));
		assertThat(admin.deadLetters(QUEUE, 0, 10)).extracting(DeadJob::id, DeadJob::error)
			.containsExactlyInAnyOrder(
					tuple(ids.get(1), "corrupt job: plain ready entry cannot be read"),
					tuple(ids.get(3), "corrupt job: field maxAttempts is 'x'"));
		assertThat(admin.deadLetters(QUEUE, 0, 10)).filteredOn((dead) -> dead.id().equals(ids.get(3)))
			.singleElement()
			.satisfies((dead) -> assertThat(dead.payloadAsString()).isEqualTo("\"4\""));
		QueueCounts counts = admin.counts(QUEUE);
		assertThat(counts.ready() + counts.inFlight()).isZero();
	}

	@Test
	void aPlainElementWithoutAnIdIsDeadLetteredUnderANewId() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String first = queues.enqueue(QUEUE, "1").id();
		this.redis.opsForList().rightPush(queues.keys(QUEUE).key("ready:plain"), "garbage");

		assertThat(queues.reserve(QUEUE, 10, LEASE)).extracting(ReservedJob::id).containsExactly(first);

		assertThat(admin.deadLetters(QUEUE, 0, 10)).singleElement().satisfies((dead) -> {
			assertThat(Long.parseLong(dead.id())).isGreaterThan(Long.parseLong(first));
			assertThat(dead.payloadAsString()).isEqualTo("garbage");
			assertThat(dead.error()).isEqualTo("corrupt job: plain ready entry cannot be read");
		});
	}

	@Test
	void aPlainElementWithoutAnIdPoppedWithAJobAfterTheCounterWasLostNeverTakesThatJobsId() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String first = queues.enqueue(QUEUE, "1").id();
		this.redis.opsForList().rightPush(queues.keys(QUEUE).key("ready:plain"), "garbage");
		// the counter and its mark lost: the id it resumes at is checked against the job records
		this.redis.delete(queues.keys(QUEUE).key("seq"));
		this.redis.opsForHash().delete(queues.keys(QUEUE).key("stats"), "~seq");

		List<ReservedJob> jobs = queues.reserve(QUEUE, 10, LEASE);

		assertThat(jobs).extracting(ReservedJob::id).containsExactly(first);
		assertThat(admin.deadLetters(QUEUE, 0, 10)).singleElement().satisfies((dead) -> {
			assertThat(dead.id()).isNotEqualTo(first);
			assertThat(dead.payloadAsString()).isEqualTo("garbage");
		});
		assertThat(new JobRecords(this.redis, queues, QUEUE).fields(first)).containsEntry("state", "active");
		assertThat(queues.complete(QUEUE, jobs.get(0).ref())).isEqualTo(AckResult.OK);
		assertThat(admin.counts(QUEUE).inFlight()).isZero();
	}

	@Test
	void aLostSequenceCounterKeepsThePlainListInIdOrder() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> before = queues.enqueueAll(QUEUE, List.of("1", "2", "3"), JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();
		this.redis.delete(queues.keys(QUEUE).key("seq"));

		String after = queues.enqueue(QUEUE, "4").id();

		assertThat(Long.parseLong(after)).isGreaterThan(Long.parseLong(before.get(2)));
		assertThat(admin.job(QUEUE, after)).hasValueSatisfying((info) -> assertThat(info.payloadAsString()).isEqualTo("\"4\""));
		assertThat(queues.reserve(QUEUE, 10, LEASE)).extracting(ReservedJob::payloadAsString)
			.containsExactly("\"1\"", "\"2\"", "\"3\"", "\"4\"");
	}

	@Test
	void dataOfAnEarlierLayoutIsRefusedWithBothVersionsNamed() {
		this.redis.opsForValue().set("rq:layout", "3");
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);

		assertThatThrownBy(() -> queues.enqueue(QUEUE, "x")).isInstanceOf(QueueException.class)
			.hasMessageContaining("layout version 3")
			.hasMessageContaining("writes version 5");
		assertThat(this.redis.hasKey(queues.keys(QUEUE).key("ready:plain"))).isFalse();
	}

}
