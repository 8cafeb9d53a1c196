package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Acknowledgements at the edges (crash trial): a completion whose lease ran out is accepted as
 * long as nobody reserved the job since (same token), whether sent alone or carried by a reserve;
 * once somebody else holds the job it is refused and changes nothing; completions sent again after
 * they were applied are refused harmlessly, so a caller may resend until Redis answers.
 */
class AcknowledgementEdgeIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration SHORT = Duration.ofMillis(150);

	private static final Duration LONG = Duration.ofMinutes(10);

	// crash trial: late ack of a job taken back but not reserved since
	@Test
	void ackOfAJobTakenBackAfterItsLeaseRanOutButNotReservedSinceIsAccepted() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("ack", "x").id();
		ReservedJob job = queues.reserve("ack", 1, SHORT).get(0);
		takenBack(queues, "ack", id);
		assertThat(admin.job("ack", id).orElseThrow().state()).isEqualTo(JobState.READY);

		assertThat(queues.complete("ack", job.ref())).isEqualTo(AckResult.OK);

		assertThat(admin.job("ack", id)).isEmpty();
		QueueCounts counts = admin.counts("ack");
		assertThat(counts.pending()).isZero();
		assertThat(counts.total("completed")).isEqualTo(1);
		assertThat(queues.reserve("ack", 1, LONG)).isEmpty();
	}

	// crash trial: the same, with completed jobs retained
	@Test
	void lateAckOfATakenBackJobLeavesItCompletedWhenCompletedJobsAreKept() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().completedRetention(Duration.ofHours(1)).build());
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("ack", "x").id();
		ReservedJob job = queues.reserve("ack", 1, SHORT).get(0);
		takenBack(queues, "ack", id);

		assertThat(queues.complete("ack", job.ref())).isEqualTo(AckResult.OK);

		assertThat(admin.job("ack", id).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
		assertThat(admin.counts("ack").ready()).isZero();
		assertThat(admin.counts("ack").completed()).isEqualTo(1);
	}

	// crash trial: the take-back used up its attempts; the late ack shows it did run
	@Test
	void lateAckOfAJobThatTheTakeBackDeadLetteredIsAccepted() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("ack", "x", JobOptions.builder().maxAttempts(1).build()).id();
		ReservedJob job = queues.reserve("ack", 1, SHORT).get(0);
		takenBack(queues, "ack", id);
		assertThat(admin.job("ack", id).orElseThrow().state()).isEqualTo(JobState.DEAD);

		assertThat(queues.complete("ack", job.ref())).isEqualTo(AckResult.OK);

		assertThat(admin.job("ack", id)).isEmpty();
		assertThat(admin.counts("ack").dead()).isZero();
		assertThat(admin.deadLetters("ack", 0, 10)).isEmpty();
	}

	// crash trial: a late completion carried by the next fetch
	@Test
	void lateCompletionCarriedByAReserveIsAppliedBeforeTheJobIsHandedOutAgain() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("ack", "x").id();
		ReservedJob job = queues.reserveBatch("ack", 1, SHORT, "w#ack").jobs().get(0);
		takenBack(queues, "ack", id);

		Reservation next = queues.reserveBatch("ack", 1, LONG, "w#ack", List.of(job.ref()));

		assertThat(next.refusedCompletions()).isZero();
		assertThat(next.jobs()).as("the completed job is not handed out again").isEmpty();
		assertThat(admin.job("ack", id)).isEmpty();
		assertThat(admin.counts("ack").total("completed")).isEqualTo(1);
	}

	// crash trial: fencing still holds once somebody else has the job
	@Test
	void ackAfterSomeoneElseReservedTheJobIsStaleAndLeavesTheNewHolderAlone() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("ack", "x").id();
		ReservedJob stale = queues.reserveBatch("ack", 1, SHORT, "old#ack").jobs().get(0);
		takenBack(queues, "ack", id);
		ReservedJob current = queues.reserveBatch("ack", 1, LONG, "new#ack").jobs().get(0);
		assertThat(current.id()).isEqualTo(id);
		Instant lease = admin.job("ack", id).orElseThrow().leaseUntil();

		assertThat(queues.complete("ack", stale.ref())).isEqualTo(AckResult.STALE_TOKEN);
		assertThat(queues.completeAll("ack", List.of(stale.ref()))).containsExactly(AckResult.STALE_TOKEN);
		Reservation carried = queues.reserveBatch("ack", 1, LONG, "old#ack", List.of(stale.ref()));
		assertThat(carried.refusedCompletions()).isEqualTo(1);
		assertThat(carried.jobs()).isEmpty();

		JobInfo info = admin.job("ack", id).orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.ACTIVE);
		assertThat(info.worker()).isEqualTo("new#ack");
		assertThat(info.leaseUntil()).isEqualTo(lease);
		assertThat(admin.counts("ack").total("completed")).isZero();
		assertThat(queues.complete("ack", current.ref())).isEqualTo(AckResult.OK);
		assertThat(admin.counts("ack").total("completed")).isEqualTo(1);
	}

	// crash trial: completions resent after a fetch call whose answer was lost
	@Test
	void completionsResentAfterTheyWereAppliedChangeNothingAndAreNotCountedAgain() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		Map<JobOutcome, Long> events = recordEvents(queues);
		queues.enqueueAll("ack", List.of("a", "b", "c", "d"), JobOptions.defaults());
		List<ReservedJob> held = queues.reserveBatch("ack", 3, LONG, "w#ack").jobs();
		List<JobRef> done = List.of(held.get(0).ref(), held.get(1).ref());

		Reservation applied = queues.reserveBatch("ack", 1, LONG, "w#ack", done);
		assertThat(applied.refusedCompletions()).isZero();
		assertThat(applied.jobs()).hasSize(1);
		// the answer was lost: the caller sends the same completions again with its next fetch
		Reservation resent = queues.reserveBatch("ack", 1, LONG, "w#ack", done);

		assertThat(resent.refusedCompletions()).as("refused as stale: nobody else holds them").isZero();
		assertThat(resent.missingCompletions()).as("their jobs are gone").isEqualTo(2);
		assertThat(resent.jobs()).isEmpty();
		assertThat(queues.completeAll("ack", done)).containsOnly(AckResult.NOT_FOUND);
		QueueCounts counts = admin.counts("ack");
		assertThat(counts.total("completed")).isEqualTo(2);
		assertThat(events.getOrDefault(JobOutcome.COMPLETED, 0L)).isEqualTo(2);
		assertThat(counts.inFlight()).isEqualTo(2);
		assertThat(admin.job("ack", held.get(2).id()).orElseThrow().state()).isEqualTo(JobState.ACTIVE);
		assertThat(queues.complete("ack", held.get(2).ref())).isEqualTo(AckResult.OK);
	}

	// crash trial: a resent completion does not touch a retained completed job
	@Test
	void completionResentToARetainedCompletedJobChangesNothingAndIsNotCountedAgain() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().completedRetention(Duration.ofHours(1)).build());
		QueueAdmin admin = new QueueAdmin(queues);
		Map<JobOutcome, Long> events = recordEvents(queues);
		String id = queues.enqueue("ack", "x").id();
		ReservedJob job = queues.reserveBatch("ack", 1, LONG, "w#ack").jobs().get(0);
		assertThat(queues.complete("ack", job.ref())).isEqualTo(AckResult.OK);
		JobInfo completed = admin.job("ack", id).orElseThrow();

		assertThat(queues.complete("ack", job.ref())).isNotEqualTo(AckResult.STALE_TOKEN);
		Reservation resent = queues.reserveBatch("ack", 1, LONG, "w#ack", List.of(job.ref()));

		assertThat(resent.refusedCompletions()).isZero();
		JobInfo after = admin.job("ack", id).orElseThrow();
		assertThat(after.state()).isEqualTo(JobState.COMPLETED);
		assertThat(after.finishedAt()).isEqualTo(completed.finishedAt());
		assertThat(after.attempts()).isEqualTo(completed.attempts());
		assertThat(admin.counts("ack").total("completed")).isEqualTo(1);
		assertThat(events.getOrDefault(JobOutcome.COMPLETED, 0L)).as("completions reported to JobEvents")
			.isEqualTo(1);
	}

	private static Map<JobOutcome, Long> recordEvents(QueueTemplate queues) {
		Map<JobOutcome, Long> events = new ConcurrentHashMap<>();
		queues.setJobEvents((queue, outcome, count) -> events.merge(outcome, count, Long::sum));
		return events;
	}

	private static void takenBack(QueueTemplate queues, String queue, String id) {
		QueueAdmin admin = new QueueAdmin(queues);
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			admin.reapOnce(queue);
			return admin.job(queue, id).orElseThrow().state() != JobState.ACTIVE;
		});
	}

}
