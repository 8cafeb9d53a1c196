package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redisqueue.core.DeadJob;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The listener's max attempts replaces the job's own, upwards and downwards, for failures and
 * for lost leases alike.
 */
class MaxAttemptsIntegrationTests extends AbstractRedisIntegrationTests {

	private final List<QueueListenerContainer> containers = new ArrayList<>();

	@AfterEach
	void stopContainers() {
		this.containers.forEach(QueueListenerContainer::stop);
	}

	private QueueListenerContainer start(QueueTemplate queues, String queue, int maxAttempts, JobListener listener) {
		// a short lease: the lease keeper notices a lost lease within a third of it
		ContainerOptions options = ListenerTestSupport.fast(ContainerOptions.defaults()).toBuilder()
			.maxAttempts(maxAttempts)
			.lease(Duration.ofSeconds(1))
			.build();
		QueueListenerContainer container = new QueueListenerContainer(queue, queue, queues, listener, options, null,
				null);
		this.containers.add(container);
		container.start();
		return container;
	}

	@Test
	void listenerMaxAttemptsAboveTheJobsOwnGivesTheJobMoreAttempts() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> attempts = new CopyOnWriteArrayList<>();
		start(queues, "up", 5, (job, ack) -> {
			attempts.add(job.attempt() + "/" + job.maxAttempts());
			throw new IllegalStateException("boom on attempt " + job.attempt());
		});
		queues.enqueue("up", "x", JobOptions.builder().maxAttempts(3).build());

		await().atMost(Duration.ofSeconds(15)).until(() -> admin.counts("up").dead() == 1);
		assertThat(attempts).containsExactly("1/5", "2/5", "3/5", "4/5", "5/5");
		DeadJob dead = admin.deadLetters("up", 0, 1).get(0);
		assertThat(dead.attempts()).isEqualTo(5);
		assertThat(dead.error()).contains("boom on attempt 5");
	}

	@Test
	void listenerMaxAttemptsBelowTheJobsOwnDeadLettersAfterTheFirstFailure() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		AtomicInteger calls = new AtomicInteger();
		start(queues, "down", 1, (job, ack) -> {
			calls.incrementAndGet();
			throw new IllegalStateException("boom");
		});
		queues.enqueue("down", "x", JobOptions.builder().maxAttempts(3).build());

		await().atMost(Duration.ofSeconds(10)).until(() -> admin.counts("down").dead() == 1);
		assertThat(calls).hasValue(1);
		assertThat(admin.deadLetters("down", 0, 1).get(0).attempts()).isEqualTo(1);
	}

	@Test
	void listenerMaxAttemptsAlsoCountsLostLeases() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		AtomicInteger calls = new AtomicInteger();
		CountDownLatch running = new CountDownLatch(1);
		QueueListenerContainer container = start(queues, "lost", 1, (job, ack) -> {
			calls.incrementAndGet();
			running.countDown();
			new CountDownLatch(1).await(30, TimeUnit.SECONDS); // until the lost lease interrupts it
		});
		String id = queues.enqueue("lost", "x", JobOptions.builder().maxAttempts(3).build()).id();
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

		// the lease is taken back without an outcome, as after a crash: one loss of one allowed
		assertThat(queues.releaseWorker("lost", container.getWorkerId())).isEqualTo(1);

		await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("lost").dead() == 1);
		DeadJob dead = admin.deadLetters("lost", 0, 1).get(0);
		assertThat(dead.id()).isEqualTo(id);
		assertThat(dead.error()).contains("held 1 times without an outcome");
		await().atMost(Duration.ofSeconds(30)).until(() -> container.getRunningJobs() == 0);
		assertThat(calls).hasValue(1);
	}

	@Test
	void aJobReservedAheadThatStartedCountsItsLossAgainstMaxAttempts() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> runs = new CopyOnWriteArrayList<>();
		CountDownLatch running = new CountDownLatch(1);
		// both in the first reserve: the first starts at once, the second is reserved ahead
		JobOptions once = JobOptions.builder().maxAttempts(1).build();
		queues.enqueue("ahead", "first", once);
		String second = queues.enqueue("ahead", "second", once).id();
		QueueListenerContainer container = startOneThread(queues, "ahead", (job, ack) -> {
			runs.add(queues.readPayload(job, String.class));
			if (job.id().equals(second)) {
				running.countDown();
				new CountDownLatch(1).await(30, TimeUnit.SECONDS); // until the lost lease interrupts it
			}
		});
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

		// taken back without an outcome while it runs, as after a crash: a loss of one allowed
		assertThat(queues.releaseWorker("ahead", container.getWorkerId())).isEqualTo(1);

		await().atMost(Duration.ofSeconds(5)).until(() -> admin.counts("ahead").dead() == 1);
		DeadJob dead = admin.deadLetters("ahead", 0, 1).get(0);
		assertThat(dead.id()).isEqualTo(second);
		assertThat(dead.error()).contains("held 1 times without an outcome");
		assertThat(runs).containsExactly("first", "second");
	}

	@Test
	void aJobReservedAheadThatNeverStartedKeepsTheWiderLimit() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> runs = new CopyOnWriteArrayList<>();
		CountDownLatch running = new CountDownLatch(1);
		JobOptions once = JobOptions.builder().maxAttempts(1).build();
		String first = queues.enqueue("waiting", "first", once).id();
		String second = queues.enqueue("waiting", "second", once).id();
		QueueListenerContainer container = startOneThread(queues, "waiting", (job, ack) -> {
			runs.add(queues.readPayload(job, String.class));
			if (job.id().equals(first)) {
				running.countDown();
				new CountDownLatch(1).await(30, TimeUnit.SECONDS); // until the lost lease interrupts it
			}
		});
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> container.getRunningJobs() == 2);

		// both taken back: the running one is lost (dead at max attempts 1), the one waiting for the
		// thread was only reserved ahead and counts under the wider limit: it runs again
		assertThat(queues.releaseWorker("waiting", container.getWorkerId())).isEqualTo(2);

		await().atMost(Duration.ofSeconds(10)).until(() -> admin.counts("waiting").total("completed") == 1);
		assertThat(admin.counts("waiting").dead()).isEqualTo(1);
		assertThat(admin.deadLetters("waiting", 0, 1).get(0).id()).isEqualTo(first);
		assertThat(runs).containsExactly("first", "second");
	}

	private QueueListenerContainer startOneThread(QueueTemplate queues, String queue, JobListener listener) {
		ContainerOptions options = ListenerTestSupport.fast(ContainerOptions.defaults()).toBuilder()
			.concurrency(1)
			.prefetch(1)
			.lease(Duration.ofSeconds(1))
			.build();
		QueueListenerContainer container = new QueueListenerContainer(queue, queue, queues, listener, options, null,
				null);
		this.containers.add(container);
		container.start();
		return container;
	}

}
