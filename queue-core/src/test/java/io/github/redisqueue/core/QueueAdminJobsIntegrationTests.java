package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.RedisClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The admin pages through the jobs of one state in the order of its index (ready jobs in the
 * order they are handed out, plain and with records merged), deletes one job wherever it is
 * unless a worker holds it, and runs a delayed job now.
 */
class QueueAdminJobsIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final String QUEUE = "jobs";

	private QueueTemplate queues;

	private QueueAdmin admin;

	@BeforeEach
	void engine() {
		this.queues = new QueueTemplate(this.connectionFactory);
		this.admin = new QueueAdmin(this.queues);
	}

	@Test
	void readyJobsAreListedInTheOrderTheyAreHandedOutPlainOrNot() {
		String a = this.queues.enqueue(QUEUE, "a").id();
		String b = this.queues.enqueue(QUEUE, "b", JobOptions.builder().uniqueKey("b").build()).id();
		String c = this.queues.enqueue(QUEUE, "c").id();
		String d = this.queues.enqueue(QUEUE, "d", JobOptions.builder().priority(5).build()).id();
		String e = this.queues.enqueue(QUEUE, "e", JobOptions.builder().priority(-5).build()).id();
		String f = this.queues.enqueue(QUEUE, "f", JobOptions.builder().expireAfter(Duration.ofHours(1)).build()).id();
		String g = this.queues.enqueue(QUEUE, "g").id();
		List<String> handOut = List.of(d, a, b, c, f, g, e);

		assertThat(ids(this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 0, 10))).isEqualTo(handOut);
		assertThat(ids(this.admin.jobs(QUEUE, JobState.READY, JobOrder.NEWEST_FIRST, 0, 10)))
			.isEqualTo(reversed(handOut));
		for (int offset = 0; offset <= handOut.size(); offset++) {
			for (int count = 1; count <= 3; count++) {
				assertThat(ids(this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, offset, count)))
					.as("oldest first, offset %d, count %d", offset, count)
					.isEqualTo(slice(handOut, offset, count));
				assertThat(ids(this.admin.jobs(QUEUE, JobState.READY, JobOrder.NEWEST_FIRST, offset, count)))
					.as("newest first, offset %d, count %d", offset, count)
					.isEqualTo(slice(reversed(handOut), offset, count));
			}
		}
		// each job complete, as one job is read
		for (JobInfo job : this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 0, 10)) {
			assertThat(job.state()).isEqualTo(JobState.READY);
			assertThat(job).usingRecursiveComparison().isEqualTo(this.admin.job(QUEUE, job.id()).orElseThrow());
		}
		assertThat(this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 0, 10))
			.extracting(JobInfo::payloadAsString, JobInfo::priority)
			.containsExactly(tuple("\"d\"", 5), tuple("\"a\"", 0), tuple("\"b\"", 0), tuple("\"c\"", 0),
					tuple("\"f\"", 0), tuple("\"g\"", 0), tuple("\"e\"", -5));
		assertThat(this.queues.reserve(QUEUE, 10, LEASE)).extracting(ReservedJob::id).isEqualTo(handOut);
		assertThat(this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 0, 10)).isEmpty();
	}

	@Test
	void pagesOfAMixedReadyQueueFollowEachOtherAcrossTheBoundaryOfPlainJobsAndJobsWithRecords() {
		// runs of plain jobs between jobs with records, of three priorities
		for (int i = 0; i < 60; i++) {
			JobOptions options = switch (i % 5) {
				case 1 -> JobOptions.builder().uniqueKey("u" + i).build();
				case 3 -> JobOptions.builder().priority((i % 2 == 0) ? 2 : -2).build();
				default -> JobOptions.defaults();
			};
			this.queues.enqueue(QUEUE, i, options);
		}
		List<String> oldestFirst = new ArrayList<>();
		List<String> newestFirst = new ArrayList<>();
		for (int offset = 0; offset < 60; offset += 7) {
			oldestFirst.addAll(ids(this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, offset, 7)));
			newestFirst.addAll(ids(this.admin.jobs(QUEUE, JobState.READY, JobOrder.NEWEST_FIRST, offset, 7)));
		}

		assertThat(oldestFirst).hasSize(60).doesNotHaveDuplicates();
		assertThat(newestFirst).isEqualTo(reversed(oldestFirst));
		assertThat(this.queues.reserve(QUEUE, 60, LEASE)).extracting(ReservedJob::id).isEqualTo(oldestFirst);
	}

	@Test
	void aPageAtTheDeepestEndReadsTheRightJobs() {
		// runs of plain jobs and jobs with records of the same priority, then lower ones
		for (int run = 0; run < 10; run++) {
			this.queues.enqueueAll(QUEUE, IntStream.range(0, 600).boxed().toList(), JobOptions.defaults());
			this.queues.enqueueAll(QUEUE, IntStream.range(0, 400).boxed().toList(),
					JobOptions.builder().expireAfter(Duration.ofHours(1)).build());
		}
		this.queues.enqueueAll(QUEUE, IntStream.range(0, 1_000).boxed().toList(),
				JobOptions.builder().priority(-1).build());

		List<String> deepest = ids(this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 9_500, 500));
		List<String> deepestFromTheEnd = ids(this.admin.jobs(QUEUE, JobState.READY, JobOrder.NEWEST_FIRST, 9_500, 500));
		List<String> acrossARunFromTheEnd = ids(this.admin.jobs(QUEUE, JobState.READY, JobOrder.NEWEST_FIRST, 9_300, 500));

		List<String> handOut = new ArrayList<>();
		this.queues.reserve(QUEUE, 10_000, LEASE).forEach((job) -> handOut.add(job.id()));
		this.queues.reserve(QUEUE, 10_000, LEASE).forEach((job) -> handOut.add(job.id()));
		assertThat(handOut).hasSize(11_000);
		assertThat(deepest).isEqualTo(handOut.subList(9_500, 10_000));
		assertThat(deepestFromTheEnd).isEqualTo(reversed(handOut.subList(1_000, 1_500)));
		assertThat(acrossARunFromTheEnd).isEqualTo(reversed(handOut.subList(1_200, 1_700)));
	}

	@Test
	void delayedJobsAreListedByDueTime() {
		String later = this.queues.enqueue(QUEUE, "later", JobOptions.builder().delay(Duration.ofMinutes(30)).build()).id();
		String soon = this.queues.enqueue(QUEUE, "soon", JobOptions.builder().delay(Duration.ofMinutes(10)).build()).id();
		String between = this.queues.enqueue(QUEUE, "between", JobOptions.builder().delay(Duration.ofMinutes(20)).build())
			.id();
		this.queues.enqueue(QUEUE, "ready");

		List<JobInfo> page = this.admin.jobs(QUEUE, JobState.DELAYED, JobOrder.OLDEST_FIRST, 0, 10);

		assertThat(ids(page)).containsExactly(soon, between, later);
		assertThat(page).allSatisfy((job) -> {
			assertThat(job.state()).isEqualTo(JobState.DELAYED);
			assertThat(job.dueAt()).isAfter(job.enqueuedAt().plus(Duration.ofMinutes(9)));
			assertThat(job).usingRecursiveComparison().isEqualTo(this.admin.job(QUEUE, job.id()).orElseThrow());
		});
		assertThat(page).extracting(JobInfo::dueAt).isSortedAccordingTo(Comparator.naturalOrder());
		assertThat(ids(this.admin.jobs(QUEUE, JobState.DELAYED, JobOrder.NEWEST_FIRST, 0, 2))).containsExactly(later,
				between);
		assertThat(ids(this.admin.jobs(QUEUE, JobState.DELAYED, JobOrder.NEWEST_FIRST, 2, 2))).containsExactly(soon);
	}

	@Test
	void activeJobsAreListedByLeaseDeadlineWithTheirWorker() {
		List<String> ids = ids(this.queues.enqueueAll(QUEUE, List.of("x", "y", "z"), JobOptions.defaults()));
		this.queues.reserveBatch(QUEUE, 1, Duration.ofMinutes(1), "pod-1#mailer");
		this.queues.reserveBatch(QUEUE, 1, Duration.ofMinutes(5), "pod-2#mailer");
		this.queues.reserveBatch(QUEUE, 1, Duration.ofMinutes(3), "pod-1#mailer");

		List<JobInfo> page = this.admin.jobs(QUEUE, JobState.ACTIVE, JobOrder.OLDEST_FIRST, 0, 10);

		assertThat(page).extracting(JobInfo::id, JobInfo::worker, JobInfo::state)
			.containsExactly(tuple(ids.get(0), "pod-1#mailer", JobState.ACTIVE),
					tuple(ids.get(2), "pod-1#mailer", JobState.ACTIVE),
					tuple(ids.get(1), "pod-2#mailer", JobState.ACTIVE));
		assertThat(page).extracting(JobInfo::leaseUntil).isSortedAccordingTo(Comparator.naturalOrder());
		assertThat(page.get(1).leaseUntil()).isAfter(page.get(0).leaseUntil().plus(Duration.ofSeconds(100)));
		assertThat(ids(this.admin.jobs(QUEUE, JobState.ACTIVE, JobOrder.NEWEST_FIRST, 0, 1))).containsExactly(ids.get(1));
	}

	@Test
	void deadJobsAreListedByTimeOfDeathWithTheirLastError() {
		List<String> ids = ids(this.queues.enqueueAll(QUEUE, List.of("1", "2", "3"), JobOptions.defaults()));
		for (ReservedJob job : this.queues.reserve(QUEUE, 3, LEASE)) {
			// a distinct time of death each
			RedisClock.awaitElapsed(this.redis, Duration.ofMillis(1));
			this.queues.deadLetter(QUEUE, job.ref(), "boom " + job.payloadAsString());
		}

		List<JobInfo> oldestFirst = this.admin.jobs(QUEUE, JobState.DEAD, JobOrder.OLDEST_FIRST, 0, 10);

		assertThat(oldestFirst).extracting(JobInfo::id, JobInfo::lastError, JobInfo::state, JobInfo::attempts)
			.containsExactly(tuple(ids.get(0), "boom \"1\"", JobState.DEAD, 1),
					tuple(ids.get(1), "boom \"2\"", JobState.DEAD, 1),
					tuple(ids.get(2), "boom \"3\"", JobState.DEAD, 1));
		assertThat(oldestFirst).extracting(JobInfo::finishedAt).doesNotContainNull()
			.isSortedAccordingTo(Comparator.naturalOrder());
		assertThat(ids(this.admin.jobs(QUEUE, JobState.DEAD, JobOrder.NEWEST_FIRST, 0, 10)))
			.isEqualTo(reversed(ids));
		assertThat(ids(this.admin.jobs(QUEUE, JobState.DEAD, JobOrder.NEWEST_FIRST, 0, 10)))
			.isEqualTo(this.admin.deadLetters(QUEUE, 0, 10).stream().map(DeadJob::id).toList());
	}

	@Test
	void pagesOutOfBoundsAndStatesWithoutAnIndexAreRefusedNamingTheRule() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, -1, 10))
			.withMessageContaining("offset must be 0 or more");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 0, 0))
			.withMessageContaining("count from 1 to 500");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.admin.jobs(QUEUE, JobState.DEAD, JobOrder.OLDEST_FIRST, 0, 501))
			.withMessageContaining("count from 1 to 500");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.admin.jobs(QUEUE, JobState.DELAYED, JobOrder.NEWEST_FIRST, 9_501, 500))
			.withMessageContaining("(offset 9501, count 500)")
			.withMessageContaining("offset plus count at most 10000");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.admin.jobs(QUEUE, JobState.READY, JobOrder.NEWEST_FIRST, Integer.MAX_VALUE, 1))
			.withMessageContaining("offset plus count at most 10000");
		for (JobState state : List.of(JobState.WAITING, JobState.COMPLETED, JobState.UNKNOWN)) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> this.admin.jobs(QUEUE, state, JobOrder.OLDEST_FIRST, 0, 10))
				.withMessageContaining("state " + state)
				.withMessageContaining("READY, DELAYED, ACTIVE and DEAD");
		}
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.admin.jobs("bad name", JobState.READY, JobOrder.OLDEST_FIRST, 0, 10))
			.withMessageContaining("'bad name'");
		assertThat(this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 9_500, 500)).isEmpty();
	}

	@Test
	void aPartitionedQueueIsListedAsOneQueue() {
		QueueTemplate partitioned = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().partitions("spread", 3).build());
		QueueAdmin admin = new QueueAdmin(partitioned);
		List<JobInfo> enqueued = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			JobOptions options = switch (i % 3) {
				case 0 -> JobOptions.defaults();
				case 1 -> JobOptions.builder().priority((i % 2 == 0) ? 1 : -1).build();
				default -> JobOptions.builder().uniqueKey("u" + i).build();
			};
			String id = partitioned.enqueue("spread", i, options).id();
			enqueued.add(admin.job("spread", id).orElseThrow());
		}
		partitioned.enqueueAll("spread", IntStream.range(30, 60).boxed().toList(), JobOptions.defaults())
			.forEach((result) -> enqueued.add(admin.job("spread", result.id()).orElseThrow()));
		assertThat(admin.partitionCounts("spread")).allSatisfy((part) -> assertThat(part.counts().ready()).isPositive());
		// higher priority first, then in the order of the sequence, whose numbers are the ids
		List<String> expected = enqueued.stream()
			.sorted(Comparator.comparingInt(JobInfo::priority).reversed()
				.thenComparingLong((JobInfo job) -> Long.parseLong(job.id())))
			.map(JobInfo::id)
			.toList();

		List<String> oldestFirst = new ArrayList<>();
		for (int offset = 0; offset < 60; offset += 8) {
			oldestFirst.addAll(ids(admin.jobs("spread", JobState.READY, JobOrder.OLDEST_FIRST, offset, 8)));
		}
		assertThat(oldestFirst).isEqualTo(expected);
		for (int offset = 0; offset <= 60; offset += 3) {
			for (int count : new int[] { 1, 4, 11 }) {
				assertThat(ids(admin.jobs("spread", JobState.READY, JobOrder.OLDEST_FIRST, offset, count)))
					.as("oldest first, offset %d, count %d", offset, count)
					.isEqualTo(slice(expected, offset, count));
				assertThat(ids(admin.jobs("spread", JobState.READY, JobOrder.NEWEST_FIRST, offset, count)))
					.as("newest first, offset %d, count %d", offset, count)
					.isEqualTo(slice(reversed(expected), offset, count));
			}
		}
		assertThat(admin.jobs("spread", JobState.READY, JobOrder.OLDEST_FIRST, 0, 60)).allSatisfy(
				(job) -> assertThat(job).usingRecursiveComparison().isEqualTo(admin.job("spread", job.id()).orElseThrow()));

		// dead letters of every partition, merged by time of death
		List<ReservedJob> taken = partitioned.reserve("spread", 6, LEASE);
		assertThat(taken).extracting((job) -> QueueTemplate.partitionOfId(job.id(), 3)).containsOnly(0, 1, 2);
		for (ReservedJob job : taken) {
			RedisClock.awaitElapsed(this.redis, Duration.ofMillis(1));
			partitioned.deadLetter("spread", job.ref(), "boom");
		}
		List<String> died = taken.stream().map(ReservedJob::id).toList();
		assertThat(ids(admin.jobs("spread", JobState.DEAD, JobOrder.OLDEST_FIRST, 0, 10))).isEqualTo(died);
		assertThat(ids(admin.jobs("spread", JobState.DEAD, JobOrder.NEWEST_FIRST, 1, 3)))
			.isEqualTo(slice(reversed(died), 1, 3));
	}

	@Test
	void aDeepPageOfAPartitionedQueueMergesThePartitionsInOrder() {
		QueueTemplate partitioned = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().partitions("deep", 3).build());
		QueueAdmin admin = new QueueAdmin(partitioned);
		// more jobs per partition than one call reads the scores of
		Map<String, Integer> priorities = new HashMap<>();
		partitioned.enqueueAll("deep", IntStream.range(0, 4_000).boxed().toList(), JobOptions.defaults())
			.forEach((result) -> priorities.put(result.id(), 0));
		partitioned.enqueueAll("deep", IntStream.range(0, 2_000).boxed().toList(), JobOptions.builder().priority(1).build())
			.forEach((result) -> priorities.put(result.id(), 1));
		partitioned.enqueueAll("deep", IntStream.range(0, 2_000).boxed().toList(),
				JobOptions.builder().expireAfter(Duration.ofHours(1)).build())
			.forEach((result) -> priorities.put(result.id(), 0));
		List<String> expected = priorities.keySet()
			.stream()
			.sorted(Comparator.comparingInt((String id) -> -priorities.get(id)).thenComparingLong(Long::parseLong))
			.toList();
		assertThat(expected).hasSize(8_000);

		for (int offset : new int[] { 0, 1_990, 2_995, 4_321, 7_950 }) {
			assertThat(ids(admin.jobs("deep", JobState.READY, JobOrder.OLDEST_FIRST, offset, 100)))
				.as("oldest first from %d", offset)
				.isEqualTo(slice(expected, offset, 100));
			assertThat(ids(admin.jobs("deep", JobState.READY, JobOrder.NEWEST_FIRST, offset, 100)))
				.as("newest first from %d", offset)
				.isEqualTo(slice(reversed(expected), offset, 100));
		}
	}

	@Test
	void aDamagedPlainElementIsListedInItsPlaceAsUnknownWithTheReason() {
		// runs first: every plain element has a record job before it
		String urgent = this.queues.enqueue(QUEUE, "0", JobOptions.builder().priority(1).build()).id();
		List<String> ids = new ArrayList<>(
				ids(this.queues.enqueueAll(QUEUE, List.of("1", "2", "3", "4"), JobOptions.defaults())));
		JobRecords records = new JobRecords(this.redis, this.queues, QUEUE);
		assertThat(records.element(ids.get(1), ids.get(1) + ":not msgpack")).isTrue();
		assertThat(records.plainField(ids.get(2), 2, "x")).isTrue();
		// an element without an id, in the middle of the list: it runs right after the one before it
		this.redis.opsForList().rightPush(this.queues.keys(QUEUE).key("ready:plain"), "garbage");
		String record = this.queues.enqueue(QUEUE, "5", JobOptions.builder().uniqueKey("five").build()).id();
		ids.addAll(ids(this.queues.enqueueAll(QUEUE, List.of("6", "7"), JobOptions.defaults())));

		List<JobInfo> page = this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 0, 10);

		assertThat(page).extracting(JobInfo::id, JobInfo::state, JobInfo::lastError, JobInfo::payloadAsString)
			.containsExactly(tuple(urgent, JobState.READY, null, "\"0\""), tuple(ids.get(0), JobState.READY, null, "\"1\""),
					tuple(ids.get(1), JobState.UNKNOWN, "corrupt job: plain ready entry cannot be read",
							ids.get(1) + ":not msgpack"),
					tuple(ids.get(2), JobState.UNKNOWN, "corrupt job: field maxAttempts is 'x'", "\"3\""),
					tuple(ids.get(3), JobState.READY, null, "\"4\""),
					tuple("", JobState.UNKNOWN, "corrupt job: plain ready entry cannot be read", "garbage"),
					tuple(record, JobState.READY, null, "\"5\""), tuple(ids.get(4), JobState.READY, null, "\"6\""),
					tuple(ids.get(5), JobState.READY, null, "\"7\""));
		List<String> oldestFirst = ids(page);
		for (int offset = 0; offset <= oldestFirst.size(); offset++) {
			for (int count = 1; count <= 3; count++) {
				assertThat(ids(this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, offset, count)))
					.as("oldest first, offset %d, count %d", offset, count)
					.isEqualTo(slice(oldestFirst, offset, count));
				assertThat(ids(this.admin.jobs(QUEUE, JobState.READY, JobOrder.NEWEST_FIRST, offset, count)))
					.as("newest first, offset %d, count %d", offset, count)
					.isEqualTo(slice(reversed(oldestFirst), offset, count));
			}
		}
		assertThat(this.admin.job(QUEUE, ids.get(2))).hasValueSatisfying((job) -> {
			assertThat(job.state()).isEqualTo(JobState.UNKNOWN);
			assertThat(job.lastError()).isEqualTo("corrupt job: field maxAttempts is 'x'");
		});

		// an operator deletes one before a reserve dead-letters it; the reserve hands out the others in
		// the order listed
		assertThat(this.admin.deleteJob(QUEUE, ids.get(2))).isTrue();
		assertThat(ids(this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 0, 10)))
			.containsExactly(urgent, ids.get(0), ids.get(1), ids.get(3), "", record, ids.get(4), ids.get(5));
		assertThat(this.queues.reserve(QUEUE, 10, LEASE)).extracting(ReservedJob::id)
			.containsExactly(urgent, ids.get(0), ids.get(3), record, ids.get(4), ids.get(5));
		assertThat(this.admin.counts(QUEUE).dead()).isEqualTo(2);
	}

	@Test
	void aPlainReadyJobIsDeletedAndTheOthersKeepTheirOrder() {
		List<String> ids = ids(this.queues.enqueueAll(QUEUE, List.of("1", "2", "3", "4", "5", "6"), JobOptions.defaults()));
		List<String> kept = new ArrayList<>(ids);

		for (int i : new int[] { 4, 1 }) {
			assertThat(this.admin.deleteJob(QUEUE, ids.get(i))).isTrue();
			kept.remove(ids.get(i));
			assertThat(this.admin.job(QUEUE, ids.get(i))).isEmpty();
			assertThat(this.admin.deleteJob(QUEUE, ids.get(i))).isFalse();
		}

		assertThat(ids(this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 0, 10))).isEqualTo(kept);
		QueueCounts counts = this.admin.counts(QUEUE);
		assertThat(counts.ready()).isEqualTo(4);
		assertThat(counts.total("deleted")).isEqualTo(2);
		assertThat(this.queues.reserve(QUEUE, 10, LEASE)).extracting(ReservedJob::id).isEqualTo(kept);
	}

	@Test
	void readyDelayedDeadAndCompletedJobsWithRecordsAreDeleted() {
		QueueTemplate retaining = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().completedRetention(Duration.ofHours(1)).build());
		QueueAdmin admin = new QueueAdmin(retaining);
		String ready = retaining.enqueue(QUEUE, "ready", JobOptions.builder().expireAfter(Duration.ofHours(1)).build())
			.id();
		String delayed = retaining.enqueue(QUEUE, "delayed", JobOptions.builder().delay(Duration.ofHours(1)).build()).id();
		List<String> other = ids(retaining.enqueueAll(QUEUE, List.of("dead", "done"), JobOptions.builder().priority(2)
			.build()));
		List<ReservedJob> taken = retaining.reserve(QUEUE, 2, LEASE);
		assertThat(taken).extracting(ReservedJob::id).isEqualTo(other);
		retaining.deadLetter(QUEUE, taken.get(0).ref(), "boom");
		retaining.complete(QUEUE, taken.get(1).ref());
		QueueCounts before = admin.counts(QUEUE);
		assertThat(List.of(before.ready(), before.delayed(), before.dead(), before.completed())).containsOnly(1L);
		assertThat(this.redis.opsForZSet().size(retaining.keys(QUEUE).key("expiry"))).isEqualTo(1);

		for (String id : List.of(ready, delayed, other.get(0), other.get(1))) {
			assertThat(admin.deleteJob(QUEUE, id)).as("job %s", id).isTrue();
			assertThat(admin.job(QUEUE, id)).isEmpty();
			assertThat(admin.deleteJob(QUEUE, id)).isFalse();
		}

		QueueCounts after = admin.counts(QUEUE);
		assertThat(List.of(after.ready(), after.delayed(), after.inFlight(), after.dead(), after.completed()))
			.containsOnly(0L);
		assertThat(after.total("deleted")).isEqualTo(4);
		assertThat(this.redis.opsForZSet().size(retaining.keys(QUEUE).key("expiry"))).isZero();
		assertThat(new JobRecords(this.redis, retaining, QUEUE).count()).isZero();
		assertThat(retaining.reserve(QUEUE, 10, LEASE)).isEmpty();
	}

	@Test
	void aJobIsDeletedAsDelayedOnlyWhileItIsDelayed() {
		String ready = this.queues.enqueue(QUEUE, "ready").id();
		String promoted = this.queues.enqueue(QUEUE, "promoted", JobOptions.builder().delay(Duration.ofHours(1)).build())
			.id();
		String delayed = this.queues.enqueue(QUEUE, "delayed", JobOptions.builder().delay(Duration.ofHours(1)).build())
			.id();
		assertThat(this.admin.promote(QUEUE, promoted)).isTrue();

		assertThat(this.admin.deleteDelayed(QUEUE, promoted)).as("run now meanwhile").isFalse();
		assertThat(this.admin.deleteDelayed(QUEUE, ready)).as("a plain ready job").isFalse();
		assertThat(this.admin.deleteDelayed(QUEUE, "999")).isFalse();
		assertThat(this.admin.deleteDelayed(QUEUE, delayed)).isTrue();

		assertThat(this.admin.job(QUEUE, promoted)).hasValueSatisfying((job) -> assertThat(job.state())
			.isEqualTo(JobState.READY));
		assertThat(this.admin.job(QUEUE, delayed)).isEmpty();
		QueueCounts counts = this.admin.counts(QUEUE);
		assertThat(counts.ready()).isEqualTo(2);
		assertThat(counts.delayed()).isZero();
		assertThat(counts.total("deleted")).isEqualTo(1);
	}

	@Test
	void deletingAJobFreesItsUniquenessKey() {
		QueueTemplate retaining = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().completedRetention(Duration.ofHours(1)).build());
		QueueAdmin admin = new QueueAdmin(retaining);
		JobOptions unique = JobOptions.builder().uniqueKey("order-1").build();
		String first = retaining.enqueue(QUEUE, "a", unique).id();
		assertThat(retaining.enqueue(QUEUE, "a", unique).duplicate()).isTrue();

		assertThat(admin.deleteJob(QUEUE, first)).isTrue();

		EnqueueResult second = retaining.enqueue(QUEUE, "a", unique);
		assertThat(second.duplicate()).isFalse();
		assertThat(second.id()).isNotEqualTo(first);
		// a key kept for its window after completion is freed too
		JobOptions window = JobOptions.builder().uniqueKey("order-1").uniqueFor(Duration.ofHours(1)).build();
		admin.deleteJob(QUEUE, second.id());
		String third = retaining.enqueue(QUEUE, "b", window).id();
		retaining.complete(QUEUE, retaining.reserve(QUEUE, 1, LEASE).get(0).ref());
		assertThat(retaining.enqueue(QUEUE, "b", window).duplicate()).isTrue();

		assertThat(admin.deleteJob(QUEUE, third)).isTrue();

		assertThat(retaining.enqueue(QUEUE, "b", window).duplicate()).isFalse();
	}

	@Test
	void aBatchWhoseLastOpenSubJobIsDeletedFinishes() {
		Batch batch = this.queues.batch(QUEUE).onComplete("jobs-done").open();
		List<String> subJobs = batch.addAll(List.of(1, 2));
		batch.seal();
		this.queues.complete(QUEUE, this.queues.reserve(QUEUE, 1, LEASE).get(0).ref());
		assertThat(batch.status().state()).isEqualTo(BatchState.SEALED);

		assertThat(this.admin.deleteJob(QUEUE, subJobs.get(1))).isTrue();

		BatchStatus status = this.admin.batch(QUEUE, batch.id()).orElseThrow();
		assertThat(status.state()).isEqualTo(BatchState.COMPLETED);
		assertThat(status.completed()).isEqualTo(1);
		assertThat(status.cancelled()).isEqualTo(1);
		assertThat(status.active()).isZero();
		assertThat(status.finishedAt()).isNotNull();
		assertThat(this.admin.counts("jobs-done").ready()).as("its completion job, handed off").isEqualTo(1);
		assertThat(batch.completion()).succeedsWithin(Duration.ofSeconds(10))
			.extracting(BatchStatus::state)
			.isEqualTo(BatchState.COMPLETED);
	}

	@Test
	void deletingASubJobOfABatchAdmitsTheNextAndAWaitingSubJobLeavesItsBatch() {
		Batch batch = this.queues.batch(QUEUE).maxConcurrency(1).open();
		List<String> subJobs = batch.addAll(List.of(1, 2, 3, 4));
		batch.seal();
		assertThat(this.admin.job(QUEUE, subJobs.get(2)).orElseThrow().state()).isEqualTo(JobState.WAITING);

		assertThat(this.admin.deleteJob(QUEUE, subJobs.get(2))).as("a waiting sub-job").isTrue();
		assertThat(this.admin.deleteJob(QUEUE, subJobs.get(0))).as("the admitted sub-job").isTrue();

		BatchStatus status = batch.status();
		assertThat(status.state()).isEqualTo(BatchState.SEALED);
		assertThat(status.cancelled()).isEqualTo(2);
		assertThat(status.active()).isEqualTo(1);
		assertThat(status.waiting()).isEqualTo(1);
		assertThat(this.admin.job(QUEUE, subJobs.get(1)).orElseThrow().state()).isEqualTo(JobState.READY);
		for (String next : List.of(subJobs.get(1), subJobs.get(3))) {
			List<ReservedJob> taken = this.queues.reserve(QUEUE, 10, LEASE);
			assertThat(taken).extracting(ReservedJob::id).containsExactly(next);
			this.queues.complete(QUEUE, taken.get(0).ref());
		}
		assertThat(batch.status()).satisfies((done) -> {
			assertThat(done.state()).isEqualTo(BatchState.COMPLETED);
			assertThat(done.completed()).isEqualTo(2);
			assertThat(done.cancelled()).isEqualTo(2);
		});
	}

	@Test
	void deletingAJobOfAGroupAdmitsTheNextAndAWaitingJobLeavesItsGroup() {
		JobOptions grouped = JobOptions.builder().group("tenant-1").build();
		List<String> ids = new ArrayList<>();
		for (String payload : List.of("1", "2", "3")) {
			ids.add(this.queues.enqueue(QUEUE, payload, grouped).id());
		}
		assertThat(this.admin.counts(QUEUE).total("groupWaiting")).isEqualTo(2);

		assertThat(this.admin.deleteJob(QUEUE, ids.get(1))).as("a waiting job").isTrue();
		assertThat(this.admin.counts(QUEUE).total("groupWaiting")).isEqualTo(1);
		assertThat(this.admin.deleteJob(QUEUE, ids.get(0))).as("the admitted job").isTrue();

		assertThat(this.admin.job(QUEUE, ids.get(2)).orElseThrow().state()).isEqualTo(JobState.READY);
		QueueCounts counts = this.admin.counts(QUEUE);
		assertThat(counts.total("groupWaiting")).isZero();
		assertThat(counts.total("groupActive")).isEqualTo(1);
		ReservedJob last = this.queues.reserve(QUEUE, 10, LEASE).get(0);
		assertThat(last.id()).isEqualTo(ids.get(2));
		this.queues.complete(QUEUE, last.ref());
		assertThat(this.admin.counts(QUEUE).total("groupActive")).isZero();
		// the group is forgotten: a new job of it runs at once
		String next = this.queues.enqueue(QUEUE, "4", grouped).id();
		assertThat(this.admin.job(QUEUE, next).orElseThrow().state()).isEqualTo(JobState.READY);
	}

	@Test
	void anActiveJobIsNotDeletedAndTheRefusalNamesItsWorker() {
		String id = this.queues.enqueue(QUEUE, "busy", JobOptions.builder().uniqueKey("busy").build()).id();
		ReservedJob job = this.queues.reserveBatch(QUEUE, 1, LEASE, "pod-7#mailer").jobs().get(0);
		JobInfo before = this.admin.job(QUEUE, id).orElseThrow();
		QueueCounts countsBefore = this.admin.counts(QUEUE);

		assertThatIllegalStateException().isThrownBy(() -> this.admin.deleteJob(QUEUE, id))
			.withMessageContaining("Job " + id + " of queue '" + QUEUE + "'")
			.withMessageContaining("worker 'pod-7#mailer'")
			.withMessageContaining(job.leaseUntil().toString())
			.withMessageContaining("can be deleted once it ends");

		assertThat(this.admin.job(QUEUE, id).orElseThrow()).usingRecursiveComparison().isEqualTo(before);
		QueueCounts countsAfter = this.admin.counts(QUEUE);
		assertThat(countsAfter.inFlight()).isEqualTo(1);
		assertThat(countsAfter.totals()).isEqualTo(countsBefore.totals());
		assertThat(this.queues.enqueue(QUEUE, "again", JobOptions.builder().uniqueKey("busy").build()).duplicate())
			.isTrue();
		assertThat(this.queues.complete(QUEUE, job.ref())).isEqualTo(AckResult.OK);
	}

	@Test
	void deletingAJobThatDoesNotExistReturnsFalse() {
		this.queues.enqueue(QUEUE, "x");

		assertThat(this.admin.deleteJob(QUEUE, "999")).isFalse();
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.deleteJob(QUEUE, "not-an-id"))
			.withMessageContaining("Job id 'not-an-id'");
		assertThat(this.admin.deleteJob("elsewhere", "1")).isFalse();
		assertThat(this.admin.counts(QUEUE).ready()).isEqualTo(1);
		assertThat(this.admin.counts(QUEUE).total("deleted")).isZero();
	}

	@Test
	void aPromotedJobRunsAfterTheReadyJobsOfItsPriorityAndBeforeLowerOnes() {
		String urgent = this.queues.enqueue(QUEUE, "urgent", JobOptions.builder().priority(1).build()).id();
		String plain = this.queues.enqueue(QUEUE, "plain").id();
		String delayed = this.queues.enqueue(QUEUE, "delayed", JobOptions.builder().delay(Duration.ofHours(1)).build())
			.id();
		String record = this.queues.enqueue(QUEUE, "record", JobOptions.builder().uniqueKey("r").build()).id();
		String later = this.queues.enqueue(QUEUE, "later").id();
		String low = this.queues.enqueue(QUEUE, "low", JobOptions.builder().priority(-1).build()).id();
		Instant before = RedisClock.now(this.redis);

		assertThat(this.admin.promote(QUEUE, delayed)).isTrue();

		JobInfo promoted = this.admin.job(QUEUE, delayed).orElseThrow();
		assertThat(promoted.state()).isEqualTo(JobState.READY);
		assertThat(promoted.dueAt()).isBetween(before, RedisClock.now(this.redis));
		assertThat(this.admin.counts(QUEUE).delayed()).isZero();
		assertThat(this.admin.promote(QUEUE, delayed)).as("not delayed any more").isFalse();
		List<String> handOut = List.of(urgent, plain, record, later, delayed, low);
		assertThat(ids(this.admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 0, 10))).isEqualTo(handOut);
		assertThat(this.queues.reserve(QUEUE, 10, LEASE)).extracting(ReservedJob::id).isEqualTo(handOut);
	}

	@Test
	void aPromotedJobWakesABlockedConsumer() {
		String delayed = this.queues.enqueue(QUEUE, "delayed", JobOptions.builder().delay(Duration.ofHours(1)).build())
			.id();
		String wake = this.queues.keys(QUEUE).key("wake");
		this.redis.delete(wake);

		assertThat(this.admin.promote(QUEUE, delayed)).isTrue();

		assertThat(this.redis.opsForList().size(wake)).isEqualTo(1);
	}

	@Test
	void onlyADelayedJobIsPromotedAndAnExpiredOneDiesInstead() {
		String ready = this.queues.enqueue(QUEUE, "ready").id();
		String record = this.queues.enqueue(QUEUE, "record", JobOptions.builder().priority(2).build()).id();
		String expiring = this.queues.enqueue(QUEUE, "expiring", JobOptions.builder().delay(Duration.ofHours(1))
			.expireAfter(Duration.ofMillis(1))
			.build()).id();
		RedisClock.awaitPast(this.redis, this.admin.job(QUEUE, expiring).orElseThrow().expireAt());

		assertThat(this.admin.promote(QUEUE, ready)).isFalse();
		assertThat(this.admin.promote(QUEUE, record)).isFalse();
		assertThat(this.admin.promote(QUEUE, "999")).isFalse();
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.promote(QUEUE, "not-an-id"));
		assertThat(this.admin.promote(QUEUE, expiring)).isFalse();

		assertThat(this.admin.job(QUEUE, expiring)).hasValueSatisfying((job) -> {
			assertThat(job.state()).isEqualTo(JobState.DEAD);
			assertThat(job.lastError()).isEqualTo("expired");
		});
		QueueCounts counts = this.admin.counts(QUEUE);
		assertThat(counts.ready()).isEqualTo(2);
		assertThat(counts.delayed()).isZero();
		assertThat(counts.total("expired")).isEqualTo(1);
		assertThat(this.admin.job(QUEUE, record).orElseThrow().state()).isEqualTo(JobState.READY);
	}

	private static List<String> ids(List<?> jobs) {
		return jobs.stream().map((job) -> (job instanceof JobInfo info) ? info.id() : ((EnqueueResult) job).id()).toList();
	}

	private static List<String> reversed(List<String> list) {
		List<String> copy = new ArrayList<>(list);
		java.util.Collections.reverse(copy);
		return copy;
	}

	private static List<String> slice(List<String> list, int offset, int count) {
		return list.subList(Math.min(offset, list.size()), Math.min(list.size(), offset + count));
	}

}
