package io.github.redisqueue.listener.ack;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The timer of {@link AckBatcher} sends the acknowledgements that the fetch loop said it would carry but did not take
 * in time, whether it sleeps until an acknowledgement wakes it or looks for one every {@link AckBatcher#MAX_DELAY}
 * after a send (then an acknowledgement does not wake it).
 */
class AckTimerIntegrationTests extends AbstractRedisIntegrationTests {

	private static final String TIMER = "test-acks-timer";

	@Test
	void acknowledgementsNoReserveTookAreSentByTheTimerWhetherItLooksOrSleeps() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		for (int i = 0; i < 3; i++) {
			queues.enqueue("acks", "job-" + i);
		}
		List<ReservedJob> jobs = reserveInCalls(queues, "acks", 3, Duration.ofMinutes(5));
		AckBatcher acks = new AckBatcher(queues, "acks", TIMER);
		try {
			// the loop says it sends them with its next reserve, and never reserves: only the timer sends them
			acks.setSentWithReserve(true);
			acks.complete(jobs.get(0).ref());
			await().until(() -> admin.counts("acks").total("completed") == 1);
			assertThat(acks.pendingCount()).isZero();
			// after a send it looks again every MAX_DELAY (a timed park) instead of sleeping
			await().until(() -> timerState() == Thread.State.TIMED_WAITING);
			acks.complete(jobs.get(1).ref());
			await().until(() -> admin.counts("acks").total("completed") == 2);
			// a while later it sleeps until an acknowledgement wakes it (a park without a deadline)
			await().until(() -> timerState() == Thread.State.WAITING);
			acks.complete(jobs.get(2).ref());
			await().until(() -> admin.counts("acks").total("completed") == 3);
		}
		finally {
			acks.close();
		}
		await().until(() -> timerState() == null);
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
