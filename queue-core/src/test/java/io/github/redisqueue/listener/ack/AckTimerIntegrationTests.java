package io.github.redisqueue.listener.ack;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The timer of {@link AckBatcher} sends the acknowledgements that the fetch loop said it would carry but did not
 * take, is not woken by each acknowledgement while they keep coming, and sleeps once they stop.
 */
class AckTimerIntegrationTests extends AbstractRedisIntegrationTests {

	private static final String TIMER = "test-acks-timer";

	@Test
	void acknowledgementsNoReserveTookAreSentByTheTimerThenItSleepsUntilTheNextOne() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<ReservedJob> jobs = reserved(queues, 3);
		AckBatcher acks = new AckBatcher(queues, "acks", TIMER);
		try {
			// the loop says it sends them with its next reserve, and never reserves: only the timer sends them
			acks.setSentWithReserve(true);
			acks.complete(jobs.get(0).ref());
			acks.complete(jobs.get(1).ref());
			await().until(() -> admin.counts("acks").total("completed") == 2);
			// nothing armed it since: it sleeps until an acknowledgement wakes it (a park without a deadline)
			await().until(() -> timerState() == Thread.State.WAITING);
			int unparks = acks.timerUnparks();
			acks.complete(jobs.get(2).ref());
			await().until(() -> admin.counts("acks").total("completed") == 3);
			assertThat(acks.timerUnparks()).isEqualTo(unparks + 1);
			assertThat(acks.pendingCount()).isZero();
		}
		finally {
			acks.close();
		}
		await().until(() -> timerState() == null);
	}

	@Test
	void aStreamOfAcknowledgementsTheLoopTakesUnparksTheTimerOnceAndItSleepsWhenItEnds() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		int count = 200;
		List<ReservedJob> jobs = reserved(queues, count);
		AckBatcher acks = new AckBatcher(queues, "acks", TIMER);
		try {
			// the first one starts the timer, which sends it and then sleeps
			int unparks = timerAsleepAfterOne(acks, admin, jobs.get(0));
			List<JobRef> taken = new ArrayList<>();
			for (ReservedJob job : jobs.subList(1, count)) {
				// a job finishes (which arms the timer), then the loop takes its acknowledgement for its reserve
				acks.complete(job.ref());
				taken.addAll(acks.drain());
			}
			// the timer of 38b4cd2 was unparked by each of them (199); this one to leave its sleep, and again
			// only if a pause of the loop longer than its look let it fall asleep
			assertThat(acks.timerUnparks() - unparks).isBetween(1, count / 4);
			queues.completeAll("acks", taken);
			acks.sent(taken, List.of());
			assertThat(admin.counts("acks").total("completed")).isEqualTo(count);
			// once they stop it sleeps again (a timer that kept looking every 5 ms would stay in a timed park)
			await().until(() -> timerState() == Thread.State.WAITING);
		}
		finally {
			acks.close();
		}
		await().until(() -> timerState() == null);
	}

	@Test
	void anAcknowledgementOnceTheWaitIsOverIsLeftForTheLoopInsteadOfBeingSentOnItsOwn() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<ReservedJob> jobs = reserved(queues, 3);
		AckBatcher acks = new AckBatcher(queues, "acks", TIMER);
		try {
			int unparks = timerAsleepAfterOne(acks, admin, jobs.get(0));
			// the loop waits: an acknowledgement is sent at once by the thread that gives it, the timer left alone
			assertThat(acks.waiting(true)).isEmpty();
			acks.complete(jobs.get(1).ref());
			assertThat(admin.counts("acks").total("completed")).isEqualTo(2);
			assertThat(acks.timerUnparks()).isEqualTo(unparks);

			// the wait is over and its jobs are being handed out: the next one waits for the loop (or the timer)
			acks.waitOver();
			acks.complete(jobs.get(2).ref());
			assertThat(acks.timerUnparks()).as("armed, not sent on its own").isEqualTo(unparks + 1);
			await().until(() -> admin.counts("acks").total("completed") == 3);
		}
		finally {
			acks.close();
		}
	}

	/**
	 * The loop says it sends acknowledgements with its reserves; one acknowledgement starts the timer, which sends
	 * it (none reserves) and falls asleep.
	 * @return the timer's unparks so far
	 */
	private static int timerAsleepAfterOne(AckBatcher acks, QueueAdmin admin, ReservedJob job) {
		acks.setSentWithReserve(true);
		acks.complete(job.ref());
		await().until(() -> admin.counts("acks").total("completed") == 1 && timerState() == Thread.State.WAITING);
		return acks.timerUnparks();
	}

	private List<ReservedJob> reserved(QueueTemplate queues, int count) {
		for (int i = 0; i < count; i++) {
			queues.enqueue("acks", "job-" + i);
		}
		return reserveInCalls(queues, "acks", count, Duration.ofMinutes(5));
	}

	private static Thread.State timerState() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals(TIMER) && thread.isAlive())
			.map(Thread::getState)
			.findFirst()
			.orElse(null);
	}

}
