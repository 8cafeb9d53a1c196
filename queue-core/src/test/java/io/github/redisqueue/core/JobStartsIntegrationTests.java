package io.github.redisqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start of jobs reserved ahead ({@link JobStarts}): recorded under the token of the latest
 * reservation only, counted when the job is lost, and leaving nothing behind once the job ends.
 */
class JobStartsIntegrationTests extends AbstractRedisIntegrationTests {

	private static final String QUEUE = "starts";

	private static final Duration LEASE = Duration.ofMinutes(1);

	@Test
	void aJobReservedAheadStartsUnderItsTokenAndLeavesNoMarkOnceAcknowledged() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		JobStarts starts = new JobStarts(queues);
		queues.enqueueAll(QUEUE, List.of("a", "b"), JobOptions.defaults());
		List<ReservedJob> jobs = queues.reserveBatch(QUEUE, 2, LEASE, "w1", List.of(), 0, 0).jobs();
		Object record = jobFields().get(jobs.get(0).id());
		long hsets = commandCalls("hset");

		JobStarts.Result result = starts.startAndComplete(QUEUE, List.of(jobs.get(0).ref()), List.of());

		assertThat(result.starts()).containsExactly(AckResult.OK);
		// the start rewrote the job's mark, not its record
		assertThat(commandCalls("hset") - hsets).isEqualTo(1);
		// the record says reserved ahead too, for instances of an earlier release, which read only it
		assertThat(new JobRecords(this.redis, queues, QUEUE).fields(jobs.get(1).id())).containsEntry("ahead", "1");
		assertThat(jobFields()).containsEntry(jobs.get(0).id(), record)
			.containsEntry(jobs.get(0).id() + ":a", "S" + jobs.get(0).token())
			.containsEntry(jobs.get(1).id() + ":a", "A" + jobs.get(1).token());
		assertThat(starts.startAndComplete(QUEUE, List.of(jobs.get(1).ref()), List.of(jobs.get(0).ref())).starts())
			.containsExactly(AckResult.OK);
		assertThat(queues.completeAll(QUEUE, List.of(jobs.get(1).ref()))).containsExactly(AckResult.OK);
		assertThat(jobFields()).isEmpty();
	}

	@Test
	void theStartsAndCompletionsOfManyJobsTakeOneWriteOfEachKindPerCall() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		JobStarts starts = new JobStarts(queues);
		queues.enqueueAll(QUEUE, List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j"), JobOptions.defaults());
		long zadds = commandCalls("zadd");
		List<ReservedJob> jobs = queues.reserveBatch(QUEUE, 10, LEASE, "w1", List.of(), 0, 0).jobs();
		// the ten leases in one ZADD (one per job before)
		assertThat(commandCalls("zadd") - zadds).isEqualTo(1);
		List<JobRef> refs = jobs.stream().map(ReservedJob::ref).toList();
		long hsets = commandCalls("hset");

		assertThat(starts.startAndComplete(QUEUE, refs, List.of()).starts()).hasSize(10).containsOnly(AckResult.OK);

		// ten marks rewritten in one HSET (one per job before)
		assertThat(commandCalls("hset") - hsets).isEqualTo(1);
		assertThat(jobFields()).containsEntry(jobs.get(9).id() + ":a", "S" + jobs.get(9).token());
		long hdels = commandCalls("hdel");
		long zrems = commandCalls("zrem");

		assertThat(queues.completeAll(QUEUE, refs)).hasSize(10).containsOnly(AckResult.OK);

		assertThat(commandCalls("hdel") - hdels).isEqualTo(1);
		assertThat(commandCalls("zrem") - zrems).isEqualTo(1);
		assertThat(jobFields()).isEmpty();
		assertThat(new QueueAdmin(queues).counts(QUEUE).total("completed")).isEqualTo(10);
	}

	@Test
	void aCallThatNamesAJobTwiceOrMixesMarkedJobsWithOthersAnswersEachPairAsBefore() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		JobStarts starts = new JobStarts(queues);
		queues.enqueue(QUEUE, "plain");
		queues.enqueue(QUEUE, "keyed", JobOptions.builder().uniqueKey("only-one").build());
		queues.enqueue(QUEUE, "other");
		List<ReservedJob> jobs = queues.reserveBatch(QUEUE, 3, LEASE, "w1", List.of(), 0, 0).jobs();
		JobRef plain = jobs.get(0).ref();
		JobRef keyed = jobs.get(1).ref();
		JobRef stale = new JobRef(jobs.get(2).id(), jobs.get(2).token() + 1);

		assertThat(starts.startAndComplete(QUEUE, List.of(plain, plain, keyed, stale), List.of()).starts())
			.containsExactly(AckResult.OK, AckResult.OK, AckResult.OK, AckResult.STALE_TOKEN);
		assertThat(queues.completeAll(QUEUE, List.of(plain, stale, plain, keyed, jobs.get(2).ref())))
			.containsExactly(AckResult.OK, AckResult.STALE_TOKEN, AckResult.NOT_FOUND, AckResult.OK, AckResult.OK);

		assertThat(jobFields()).isEmpty();
		assertThat(new QueueAdmin(queues).counts(QUEUE).total("completed")).isEqualTo(3);
		// the key was released with its job: it may be enqueued again
		assertThat(queues.enqueue(QUEUE, "again", JobOptions.builder().uniqueKey("only-one").build()).duplicate())
			.isFalse();
	}

	@Test
	void aJobNamedAgainAfterAStaleStartIsStartedByItsMarkAlone() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue(QUEUE, "a");
		ReservedJob job = reserveOne(queues, "w1", 0);
		Object record = jobFields().get(job.id());
		JobRef stale = new JobRef(job.id(), job.token() + 1);

		assertThat(new JobStarts(queues).startAndComplete(QUEUE, List.of(stale, job.ref()), List.of()).starts())
			.containsExactly(AckResult.STALE_TOKEN, AckResult.OK);

		// as for a job named once: the mark rewritten, the record (which says 'ahead') left as it was
		assertThat(jobFields()).containsEntry(job.id(), record).containsEntry(job.id() + ":a", "S" + job.token());
	}

	@Test
	void startsOfMoreJobsThanOneRunNamingAJobTwiceAreAllRecorded() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		List<String> payloads = new ArrayList<>();
		for (int i = 0; i < 500; i++) {
			payloads.add("p" + i);
		}
		queues.enqueueAll(QUEUE, payloads, JobOptions.defaults());
		List<ReservedJob> jobs = queues.reserveBatch(QUEUE, 500, LEASE, "w1", List.of(), 0, 0).jobs();
		assertThat(jobs).hasSize(500);
		List<JobRef> refs = new ArrayList<>(jobs.stream().map(ReservedJob::ref).toList());
		// the 501st pair names the first job again: the second run of pairs names no new job
		refs.add(jobs.get(0).ref());

		assertThat(new JobStarts(queues).startAndComplete(QUEUE, refs, List.of()).starts()).hasSize(501)
			.containsOnly(AckResult.OK);

		assertThat(queues.completeAll(QUEUE, refs)).hasSize(501).containsOnly(AckResult.OK, AckResult.NOT_FOUND);
		assertThat(jobFields()).isEmpty();
	}

	@Test
	void aCompletedJobKeptUnderARetentionKeepsNoMark() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().completedRetention(Duration.ofHours(1)).build());
		String id = queues.enqueue(QUEUE, "a").id();
		ReservedJob job = reserveOne(queues, "w1", 0);
		assertThat(new JobStarts(queues).startAndComplete(QUEUE, List.of(job.ref()), List.of(job.ref())).starts())
			.containsExactly(AckResult.OK);

		assertThat(jobFields().keySet()).containsExactlyInAnyOrder(id, id + ":p");
	}

	@Test
	void aStartedJobWithoutKeyBatchOrGroupIsCompletedWithoutReadingItsRecord() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue(QUEUE, "a");
		ReservedJob job = reserveOne(queues, "w1", 1);
		// a record that cannot be decoded: only a completion that reads it notices
		this.redis.opsForHash().put(queues.keys(QUEUE).key("jobs"), job.id(), "damaged");

		assertThat(queues.complete(QUEUE, job.ref())).isEqualTo(AckResult.OK);

		assertThat(jobFields()).isEmpty();
		assertThat(new QueueAdmin(queues).counts(QUEUE).total("completed")).isEqualTo(1);
	}

	@Test
	void aJobWithAUniquenessKeyIsMarkedToBeCompletedTheLongWay() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue(QUEUE, "a", JobOptions.builder().uniqueKey("only-one").build());
		ReservedJob job = reserveOne(queues, "w1", 0);
		assertThat(jobFields()).containsEntry(job.id() + ":a", "a" + job.token());
		assertThat(new JobStarts(queues).startAndComplete(QUEUE, List.of(job.ref()), List.of()).starts())
			.containsExactly(AckResult.OK);
		assertThat(jobFields()).containsEntry(job.id() + ":a", "s" + job.token());

		assertThat(queues.complete(QUEUE, job.ref())).isEqualTo(AckResult.OK);

		// its key was released with it: the same key is taken again
		assertThat(queues.enqueue(QUEUE, "b", JobOptions.builder().uniqueKey("only-one").build()).duplicate())
			.isFalse();
	}

	@Test
	void aLateStartOfAJobLostAndStartedAtOnceElsewhereIsRefused() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue(QUEUE, "a");
		ReservedJob first = reserveOne(queues, "w1", 0);
		ReservedJob second = reserveOnceLapsed(queues, "w2", 1);

		JobStarts.Result late = new JobStarts(queues).startAndComplete(QUEUE, List.of(first.ref()), List.of());

		assertThat(second.id()).isEqualTo(first.id());
		assertThat(late.starts()).containsExactly(AckResult.STALE_TOKEN);
		assertThat(queues.complete(QUEUE, second.ref())).isEqualTo(AckResult.OK);
	}

	@Test
	void aLateStartOfAJobLostAndReservedAheadElsewhereIsRefusedAndTheNewHoldersStartIsNot() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		JobStarts starts = new JobStarts(queues);
		queues.enqueue(QUEUE, "a");
		ReservedJob first = reserveOne(queues, "w1", 0);
		ReservedJob second = reserveOnceLapsed(queues, "w2", 0);

		assertThat(starts.startAndComplete(QUEUE, List.of(first.ref()), List.of()).starts())
			.containsExactly(AckResult.STALE_TOKEN);
		assertThat(starts.startAndComplete(QUEUE, List.of(second.ref()), List.of()).starts())
			.containsExactly(AckResult.OK);
	}

	@Test
	void aLossCountsUnderTheWiderLimitBeforeTheStartAndAgainstMaxAttemptsAfterIt() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		JobStarts starts = new JobStarts(queues);
		String id = queues.enqueue(QUEUE, "a").id();
		queues.reserveBatch(QUEUE, 1, LEASE, "w1", List.of(), 0, 0);
		ReservedJob again = reserveOnceLapsed(queues, "w2", 0);
		JobRecords records = new JobRecords(this.redis, queues, QUEUE);
		assertThat(losses(records, id)).containsExactly("1", "0");
		assertThat(starts.startAndComplete(QUEUE, List.of(again.ref()), List.of()).starts())
			.containsExactly(AckResult.OK);

		reserveOnceLapsed(queues, "w3", 1);

		assertThat(losses(records, id)).containsExactly("1", "1");
	}

	@Test
	void aJobDeadLetteredByItsHolderKeepsNoMark() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		String id = queues.enqueue(QUEUE, "a").id();
		ReservedJob job = reserveOne(queues, "w1", 1);

		queues.deadLetter(QUEUE, job.ref(), "boom");

		assertThat(jobFields().keySet()).containsExactlyInAnyOrder(id, id + ":p");
	}

	@Test
	void aHolderWhoseJobWasTakenBackCannotCompleteItAfterARetryFromTheDeadLetters() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue(QUEUE, "a");
		ReservedJob first = reserveOne(queues, "w1", 1);
		ReservedJob second = reserveOnceLapsed(queues, "w2", 1);
		queues.deadLetter(QUEUE, second.ref(), "boom");
		assertThat(new QueueAdmin(queues).retryDead(QUEUE, first.id())).isTrue();
		ReservedJob third = reserveOne(queues, "w3", 1);

		AckResult late = queues.complete(QUEUE, first.ref());

		// no token is handed out twice: the first holder's late completion is stale
		assertThat(List.of(first.token(), second.token(), third.token())).doesNotHaveDuplicates();
		assertThat(late).isEqualTo(AckResult.STALE_TOKEN);
		assertThat(queues.complete(QUEUE, third.ref())).isEqualTo(AckResult.OK);
	}

	/** Reserves the queue's next job, started at once ({@code startNow} 1) or ahead (0). */
	private static ReservedJob reserveOne(QueueTemplate queues, String worker, int startNow) {
		return queues.reserveBatch(QUEUE, 1, LEASE, worker, List.of(), 0, startNow).jobs().get(0);
	}

	/**
	 * Reserves the queue's job after the lease of its holder ran out (its deadline is set in the
	 * past), started at once or ahead.
	 */
	private ReservedJob reserveOnceLapsed(QueueTemplate queues, String worker, int startNow) {
		String inFlight = queues.keys(QUEUE).key("inflight");
		for (String id : this.redis.opsForZSet().range(inFlight, 0, -1)) {
			this.redis.opsForZSet().add(inFlight, id, 1);
		}
		List<ReservedJob> jobs = queues.reserveBatch(QUEUE, 1, LEASE, worker, List.of(), 0, startNow).jobs();
		assertThat(jobs).hasSize(1);
		return jobs.get(0);
	}

	/** A job's losses while reserved ahead, and after its start. */
	private static List<String> losses(JobRecords records, String id) {
		Map<String, String> fields = records.fields(id);
		return List.of(fields.getOrDefault("lostAhead", "0"), fields.getOrDefault("lost", "0"));
	}

	private Map<Object, Object> jobFields() {
		return this.redis.opsForHash().entries(new QueueTemplate(this.connectionFactory).keys(QUEUE).key("jobs"));
	}

}
