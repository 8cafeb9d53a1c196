package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.redisqueue.core.script.InspectReplies;
import io.github.redisqueue.core.script.ScriptArgs;
import io.github.redisqueue.core.script.ScriptReplies;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decoding of the scripts' replies and encoding of their arguments, on replies shaped as Redis
 * hands them to Java: Lua numbers as {@code Long}, strings as {@code byte[]}, tables as lists.
 * No Redis is involved.
 */
class ScriptRepliesTests {

	/** Headers "decoded" as one entry holding the raw text, so the test sees what was passed. */
	private static final Function<byte[], Map<String, String>> RAW_HEADERS = (raw) -> Map.of("raw", text(raw));

	private static final Function<List<JobRef>, List<byte @Nullable []>> NO_APART = (ids) -> {
		throw new AssertionError("no payload was given by its length: " + ids);
	};

	@Test
	void enqueueRepliesPairIdsWithTheirCreatedFlag() {
		assertThat(ScriptReplies.enqueueResults(List.of(bytes("7"), 1L, bytes("3"), 0L)))
			.containsExactly(new EnqueueResult("7", false), new EnqueueResult("3", true));
		assertThat(ScriptReplies.enqueueResults(List.of())).isEmpty();
	}

	@Test
	void enqueueRepliesOfARangeOfNewIdsNameEveryId() {
		// ids 14, 17, 20 of partition 2 of a queue of 3
		assertThat(ScriptReplies.enqueueResults(List.of(-1L, 14L, 3L, 3L))).containsExactly(
				new EnqueueResult("14", false), new EnqueueResult("17", false), new EnqueueResult("20", false));
	}

	@Test
	void reserveReplyCarriesTheHeaderAndTenValuesPerJob() {
		List<Object> reply = new ArrayList<>(List.of(5_000L, 2L, 1L, 2L, 3L, 4L, 1_000L, 6L, 1_400L, 1L));
		reply.addAll(job("11", "{\"a\":1}", "h1", 1, 3, 7, 61_000, 900, 5, 250));
		reply.addAll(job("12", "\"b\"", "", 2, 5, 8, 62_000, 950, -3, 0));

		ScriptReplies.ReserveReply decoded = ScriptReplies.reservation("mail", reply, RAW_HEADERS, 1, NO_APART);

		Reservation reservation = decoded.reservation();
		assertThat(decoded.batchesDone()).isEqualTo(6);
		assertThat(reservation.nextDue()).isEqualTo(Instant.ofEpochMilli(5_000));
		assertThat(reservation.reclaimed()).isEqualTo(2);
		assertThat(reservation.expired()).isEqualTo(1);
		assertThat(reservation.refusedCompletions()).isEqualTo(3);
		assertThat(reservation.missingCompletions()).isEqualTo(4);
		assertThat(reservation.serverTime()).isEqualTo(Instant.ofEpochMilli(1_000));
		assertThat(reservation.rateLimitedUntil()).isEqualTo(Instant.ofEpochMilli(1_400));
		assertThat(reservation.cutShort()).isTrue();
		assertThat(reservation.jobs()).hasSize(2);
		assertThat(reservation.reservedAhead()).containsExactly("12");
		ReservedJob first = reservation.jobs().get(0);
		assertThat(first.queue()).isEqualTo("mail");
		assertThat(first.id()).isEqualTo("11");
		assertThat(first.payloadAsString()).isEqualTo("{\"a\":1}");
		assertThat(first.headers()).containsEntry("raw", "h1");
		assertThat(first.attempt()).isEqualTo(1);
		assertThat(first.maxAttempts()).isEqualTo(3);
		assertThat(first.token()).isEqualTo(7);
		assertThat(first.leaseUntil()).isEqualTo(Instant.ofEpochMilli(61_000));
		assertThat(first.enqueuedAt()).isEqualTo(Instant.ofEpochMilli(900));
		assertThat(first.priority()).isEqualTo(5);
		ReservedJob second = reservation.jobs().get(1);
		assertThat(second.id()).isEqualTo("12");
		assertThat(second.headers()).containsEntry("raw", "");
		assertThat(second.priority()).isEqualTo(-3);
		assertThat(decoded.waits()).containsExactly(Duration.ofMillis(250), Duration.ZERO);
	}

	@Test
	void payloadsGivenByTheirLengthAreReadApartAndAJobWhosePayloadIsGoneIsLeftOut() {
		List<Object> reply = new ArrayList<>(List.of(-1L, 0L, 0L, 3L, 0L, 0L, 1_000L, 0L, -1L, 0L));
		reply.addAll(job("21", "x", "", 1, 3, 1, 61_000, 900, 0, 5));
		reply.addAll(job("22", "ignored", "", 1, 3, 4, 61_000, 900, 0, 6));
		reply.set(reply.size() - 9, 5_000L);
		reply.addAll(job("23", "ignored", "", 1, 3, 9, 61_000, 900, 0, 7));
		reply.set(reply.size() - 9, 6_000L);
		List<List<JobRef>> asked = new ArrayList<>();

		// the first two started at once: the third (by its place in the reply) was reserved ahead
		ScriptReplies.ReserveReply decoded = ScriptReplies.reservation("mail", reply, RAW_HEADERS, 2, (jobs) -> {
			asked.add(jobs);
			return Arrays.asList(null, "big".getBytes(StandardCharsets.UTF_8));
		});

		assertThat(asked).containsExactly(List.of(new JobRef("22", 4), new JobRef("23", 9)));
		Reservation reservation = decoded.reservation();
		assertThat(reservation.jobs()).extracting(ReservedJob::id).containsExactly("21", "23");
		assertThat(reservation.jobs().get(1).payloadAsString()).isEqualTo("big");
		assertThat(reservation.reservedAhead()).containsExactly("23");
		assertThat(reservation.cutShort()).as("a job left out: ask again at once").isTrue();
		assertThat(decoded.waits()).containsExactly(Duration.ofMillis(5), Duration.ofMillis(7));
	}

	@Test
	void reserveReplyWithoutJobsOrDelayedJobs() {
		ScriptReplies.ReserveReply decoded = ScriptReplies.reservation("mail",
				List.of(-1L, 0L, 0L, 0L, 0L, 0L, 1_000L, 0L, -1L, 0L), RAW_HEADERS, 0, NO_APART);

		assertThat(decoded.reservation().jobs()).isEmpty();
		assertThat(decoded.reservation().nextDue()).isNull();
		assertThat(decoded.reservation().rateLimitedUntil()).isNull();
		assertThat(decoded.reservation().cutShort()).isFalse();
		assertThat(decoded.waits()).isEmpty();
	}

	@Test
	void inspectReplyGivesCountsTotalsHeadAgeAndThroughput() {
		List<Object> counters = List.of(bytes("enqueued"), bytes("12"), bytes("~b3"), bytes("170000"), bytes("dead"),
				bytes("1"));
		QueueCounts counts = InspectReplies.counts("mail",
				List.of(4L, 3L, 2L, 1L, 9L, 1L, counters, 1_500L, 30L, 60_000L));

		assertThat(counts.queue()).isEqualTo("mail");
		assertThat(counts.ready()).isEqualTo(4);
		assertThat(counts.delayed()).isEqualTo(3);
		assertThat(counts.inFlight()).isEqualTo(2);
		assertThat(counts.dead()).isEqualTo(1);
		assertThat(counts.completed()).isEqualTo(9);
		assertThat(counts.paused()).isTrue();
		assertThat(counts.totals()).containsOnly(Map.entry("enqueued", 12L), Map.entry("dead", 1L));
		assertThat(counts.headAge()).isEqualTo(Duration.ofMillis(1_500));
		assertThat(counts.throughput()).isEqualTo(0.5);
	}

	@Test
	void inspectReplyOfAnIdleQueue() {
		QueueCounts counts = InspectReplies.counts("idle", List.of(0L, 0L, 0L, 0L, 0L, 0L, List.of(), -1L, 0L, 0L));

		assertThat(counts.paused()).isFalse();
		assertThat(counts.headAge()).as("no job is ready").isNull();
		assertThat(counts.totals()).isEmpty();
		assertThat(counts.throughput()).isZero();
	}

	@Test
	void openBatchesAreThoseOpenedAndNotFinished() {
		List<Object> counters = List.of(bytes("batchesOpened"), bytes("5"), bytes("batchesCompleted"), bytes("2"),
				bytes("batchesCancelled"), bytes("1"));

		assertThat(InspectReplies.counts("mail", List.of(0L, 0L, 0L, 0L, 0L, 0L, counters, -1L, 0L, 0L)).openBatches())
			.isEqualTo(2);
		assertThat(InspectReplies.counts("idle", List.of(0L, 0L, 0L, 0L, 0L, 0L, List.of(), -1L, 0L, 0L)).openBatches())
			.isZero();
	}

	@Test
	void countersThatAreNotNumbersAreLeftOut() {
		assertThat(InspectReplies.totals(List.of(bytes("completed"), bytes("many"), bytes("failed"), bytes("2"),
				bytes("dangling")))).containsOnly(Map.entry("failed", 2L));
	}

	@Test
	void deadLetterPageFollowsTheCountsWithSixValuesPerJob() {
		List<Object> reply = new ArrayList<>(idleCounts());
		reply.addAll(List.of(bytes("9"), bytes("\"x\""), bytes("h9"), 3L, bytes("boom"), 70_000L));
		reply.addAll(List.of(bytes("4"), bytes(""), bytes(""), 0L, bytes(""), 60_000L));

		List<DeadJob> page = InspectReplies.deadLetters(reply, RAW_HEADERS);

		assertThat(page).hasSize(2);
		DeadJob newest = page.get(0);
		assertThat(newest.id()).isEqualTo("9");
		assertThat(newest.payloadAsString()).isEqualTo("\"x\"");
		assertThat(newest.headers()).containsEntry("raw", "h9");
		assertThat(newest.attempts()).isEqualTo(3);
		assertThat(newest.error()).isEqualTo("boom");
		assertThat(newest.diedAt()).isEqualTo(Instant.ofEpochMilli(70_000));
		// a job whose hash lost its fields: the script answers empty strings and 0
		DeadJob damaged = page.get(1);
		assertThat(damaged.payload()).isEmpty();
		assertThat(damaged.error()).isEmpty();
		assertThat(damaged.attempts()).isZero();
	}

	@Test
	void emptyDeadLetterPage() {
		assertThat(InspectReplies.deadLetters(idleCounts(), RAW_HEADERS)).isEmpty();
	}

	@Test
	void jobHashWithEveryField() {
		Map<byte[], byte[]> hash = hash("state", "active", "payload", "\"p\"", "headers", "h", "priority", "-5",
				"attempts", "2", "maxAttempts", "4", "enqueuedAt", "1000", "dueAt", "0", "expireAt", "9000",
				"leaseUntil", "5000", "worker", "pod-1#c", "error", "boom", "finishedAt", "0", "progress", "{\"n\":1}");

		JobInfo job = InspectReplies.job("mail", "3", hash, RAW_HEADERS).orElseThrow();

		assertThat(job.queue()).isEqualTo("mail");
		assertThat(job.id()).isEqualTo("3");
		assertThat(job.state()).isEqualTo(JobState.ACTIVE);
		assertThat(job.payloadAsString()).isEqualTo("\"p\"");
		assertThat(job.headers()).containsEntry("raw", "h");
		assertThat(job.priority()).isEqualTo(-5);
		assertThat(job.attempts()).isEqualTo(2);
		assertThat(job.maxAttempts()).isEqualTo(4);
		assertThat(job.enqueuedAt()).isEqualTo(Instant.ofEpochMilli(1000));
		assertThat(job.dueAt()).as("0 means none").isNull();
		assertThat(job.expireAt()).isEqualTo(Instant.ofEpochMilli(9000));
		assertThat(job.leaseUntil()).isEqualTo(Instant.ofEpochMilli(5000));
		assertThat(job.worker()).isEqualTo("pod-1#c");
		assertThat(job.lastError()).isEqualTo("boom");
		assertThat(job.finishedAt()).isNull();
		assertThat(job.progress()).isEqualTo("{\"n\":1}");
	}

	@Test
	void progressRepliesTellWhetherItWasWritten() {
		assertThat(ScriptReplies.progressWritten(List.of(1L))).isTrue();
		assertThat(ScriptReplies.progressWritten(List.of(0L))).as("stale token").isFalse();
		assertThat(ScriptReplies.progressWritten(List.of(-1L))).as("no such job").isFalse();
	}

	@Test
	void missingJob() {
		assertThat(InspectReplies.job("mail", "3", null, RAW_HEADERS)).isEmpty();
		assertThat(InspectReplies.job("mail", "3", Map.of(), RAW_HEADERS)).isEmpty();
	}

	@Test
	void damagedJobHashStillShows() {
		JobInfo job = InspectReplies.job("mail", "3", hash("state", "weird", "attempts", "many", "worker", ""),
				RAW_HEADERS).orElseThrow();

		assertThat(job.state()).isEqualTo(JobState.UNKNOWN);
		assertThat(job.attempts()).isZero();
		assertThat(job.payload()).isEmpty();
		assertThat(job.headers()).containsEntry("raw", "");
		assertThat(job.enqueuedAt()).isEqualTo(Instant.EPOCH);
		assertThat(job.worker()).isNull();
		assertThat(job.lastError()).isNull();
		assertThat(job.leaseUntil()).isNull();
	}

	@Test
	void everyJobStateIsKnown() {
		assertThat(List.of("ready", "delayed", "waiting", "active", "completed", "dead", ""))
			.map(InspectReplies::jobState)
			.containsExactly(JobState.READY, JobState.DELAYED, JobState.WAITING, JobState.ACTIVE, JobState.COMPLETED,
					JobState.DEAD, JobState.UNKNOWN);
	}

	@Test
	void workersReplyPairsIdsWithTheirHashes() {
		List<Object> reply = List.of(bytes("pod-1"),
				List.of(bytes("host"), bytes("h1"), bytes("queues"), bytes("mail,sms"), bytes("runningJobs"), bytes("3"),
						bytes("startedAt"), bytes("100"), bytes("lastSeen"), bytes("200")),
				bytes("pod-2"), List.of(bytes("host"), bytes("h2"), bytes("queues"), bytes("")));

		List<WorkerInfo> workers = InspectReplies.workers(reply);

		assertThat(workers).containsExactly(
				new WorkerInfo("pod-1", "h1", List.of("mail", "sms"), 3, Instant.ofEpochMilli(100),
						Instant.ofEpochMilli(200)),
				new WorkerInfo("pod-2", "h2", List.of(), 0, null, null));
		assertThat(InspectReplies.workers(List.of())).isEmpty();
		assertThat(InspectReplies.workers(null)).isEmpty();
	}

	@Test
	void silentWorkersReplyIsTheNumberMovedThenTheirIds() {
		assertThat(InspectReplies.silentPage(List.of(2L, bytes("pod-1"), bytes("pod-2"))))
			.isEqualTo(new InspectReplies.SilentPage(2, List.of("pod-1", "pod-2")));
		assertThat(InspectReplies.silentPage(null)).isEqualTo(new InspectReplies.SilentPage(0, List.of()));
	}

	@Test
	void workersPageReplyIsTheNumberReadThenTheWorkers() {
		InspectReplies.WorkerPage page = InspectReplies.workerPage(
				List.of(3L, bytes("pod-1"), List.of(bytes("host"), bytes("h1"), bytes("queues"), bytes("mail"))));
		assertThat(page.read()).isEqualTo(3);
		assertThat(page.workers()).extracting(WorkerInfo::id).containsExactly("pod-1");
		assertThat(InspectReplies.workerPage(null).read()).isZero();
	}

	@Test
	void reapReplyInTheOrderOfTheResult() {
		assertThat(ScriptReplies.reapResult(List.of(1L, 2L, 3L, 4L, 5L, 6L, 0L)))
			.isEqualTo(new ReapResult(1, 2, 3, 4, 5, 6));
	}

	@Test
	void deadLetterActionAndWorkerReleaseReplies() {
		assertThat(InspectReplies.deadOp(List.of(3L, 1L, 9_000L)))
			.isEqualTo(new InspectReplies.DeadOpReply(3, 1, 9_000));
		assertThat(ScriptReplies.workerRelease(List.of(2L, 1_000L)))
			.isEqualTo(new ScriptReplies.WorkerReleaseReply(2, 1_000));
	}

	@Test
	void acknowledgementCodes() {
		List<Object> reply = List.of(1L, 2L, 0L, -1L, 7L, -9L);

		assertThat(ScriptReplies.ackResults(reply)).containsExactly(AckResult.OK, AckResult.OK,
				AckResult.STALE_TOKEN, AckResult.NOT_FOUND, AckResult.OK, AckResult.NOT_FOUND);
		assertThat(ScriptReplies.acknowledged(reply)).as("only code 1 was done by this call").isEqualTo(1);
	}

	@Test
	void extendCodesAreTheNewDeadlineOrAFailure() {
		assertThat(ScriptReplies.extendResults(List.of(90_000L, 0L, -1L))).containsExactly(
				new ExtendResult(AckResult.OK, Instant.ofEpochMilli(90_000)), new ExtendResult(AckResult.STALE_TOKEN, null),
				new ExtendResult(AckResult.NOT_FOUND, null));
	}

	@Test
	void failCodes() {
		assertThat(List.of(1L, 2L, 0L, -1L, 9L)).map((code) -> ScriptReplies.failResult(List.of(code)))
			.containsExactly(FailResult.RETRY_SCHEDULED, FailResult.DEAD_LETTERED, FailResult.STALE_TOKEN,
					FailResult.NOT_FOUND, FailResult.NOT_FOUND);
	}

	@Test
	void numbersAreReadFromIntegersAndFromText() {
		assertThat(ScriptReplies.asLong(42L)).isEqualTo(42);
		assertThat(ScriptReplies.asLong(bytes("-7"))).isEqualTo(-7);
		assertThat(ScriptReplies.text(bytes("é"))).isEqualTo("é");
	}

	@Test
	void jobOptionArgumentsInTheOrderEnqueueReadsThem() {
		JobOptions options = JobOptions.builder()
			.priority(-2)
			.delay(Duration.ofSeconds(3))
			.uniqueKey("ü")
			.uniqueFor(Duration.ofMinutes(1))
			.expireAfter(Duration.ofHours(1))
			.idempotencyKey("order-1")
			.build();

		// the idempotency key goes as a key of the call, after the queue's 23: its position is passed
		assertThat(texts(ScriptArgs.jobOptionArgs(options, 3, 1))).containsExactly("-2", "3000", "0", "ü", "60000",
				"3600000", "3", "24", "86400000", "", "1");
		assertThat(texts(ScriptArgs.jobOptionArgs(JobOptions.builder()
			.runAt(Instant.ofEpochMilli(5_000))
			.maxAttempts(8)
			.build(), 3, 1))).containsExactly("0", "0", "5000", "", "0", "0", "8", "", "86400000", "", "1");
		assertThat(texts(ScriptArgs.jobOptionArgs(JobOptions.builder().group("customer-9").build(), 3, 4)))
			.containsExactly("0", "0", "0", "", "0", "0", "3", "", "86400000", "customer-9", "4");
	}

	@Test
	void batchStatusRepliesNameEveryValue() {
		List<Object> status = List.of(bytes("sealed"), 3L, 50L, 10L, 3L, 2L, 1L, 0L, 1_000L, 0L, bytes("done"), 4L);

		assertThat(InspectReplies.batchStatus("resize", "b1", status, 0)).isEqualTo(new BatchStatus("resize", "b1",
				BatchState.SEALED, 3, 50, 10, 4, 3, 2, 1, 0, Instant.ofEpochMilli(1_000), null, "done"));
		List<Object> list = new ArrayList<>(List.of(2L, bytes("b1")));
		list.addAll(status);
		list.add(bytes("b2"));
		list.addAll(List.of(bytes("completed"), 1L, 0L, 1L, 0L, 1L, 0L, 0L, 1_000L, 2_000L, bytes(""), 0L));
		assertThat(InspectReplies.batchList("resize", list)).extracting(BatchStatus::id, BatchStatus::state,
				BatchStatus::finishedAt, BatchStatus::completionQueue)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("b1", BatchState.SEALED, null, "done"),
					org.assertj.core.groups.Tuple.tuple("b2", BatchState.COMPLETED, Instant.ofEpochMilli(2_000), null));
	}

	@Test
	void completeRepliesEndWithTheFinishedBatches() {
		List<Object> reply = List.of(1L, 0L, 2L, 5L);

		assertThat(ScriptReplies.ackResults(ScriptReplies.completeCodes(reply))).containsExactly(AckResult.OK,
				AckResult.STALE_TOKEN, AckResult.OK);
		assertThat(ScriptReplies.completeBatchesDone(reply)).isEqualTo(5);
	}

	@Test
	void jobReferencesFollowTheLeadingArgument() {
		List<byte[]> args = ScriptArgs.refArgs(ScriptArgs.encodeNumber(100),
				List.of(new JobRef("1", 4), new JobRef("2", 5)));

		assertThat(texts(args.toArray(byte[][]::new))).containsExactly("100", "1", "4", "2", "5");
	}

	private static List<Object> job(String id, String payload, String headers, long attempt, long maxAttempts,
			long token, long leaseUntil, long enqueuedAt, long priority, long waited) {
		return List.of(bytes(id), bytes(payload), bytes(headers), attempt, maxAttempts, token, leaseUntil, enqueuedAt,
				priority, waited);
	}

	private static List<Object> idleCounts() {
		return List.of(0L, 0L, 0L, 2L, 0L, 0L, List.of(), -1L, 0L, 50_000L);
	}

	private static Map<byte[], byte[]> hash(String... fieldsAndValues) {
		Map<byte[], byte[]> hash = new LinkedHashMap<>();
		for (int i = 0; i < fieldsAndValues.length; i += 2) {
			hash.put(bytes(fieldsAndValues[i]), bytes(fieldsAndValues[i + 1]));
		}
		return hash;
	}

	private static List<String> texts(byte[][] values) {
		return Arrays.stream(values).map(ScriptRepliesTests::text).toList();
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static String text(byte[] value) {
		return new String(value, StandardCharsets.UTF_8);
	}

}
