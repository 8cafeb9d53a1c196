package io.github.redisqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.core.task.TaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The listener container on a real Redis: acknowledgement modes, lease extension, the
 * concurrency cap, graceful shutdown, and a restarted worker resuming its own leases.
 */
class ContainerIntegrationTests extends AbstractRedisIntegrationTests {

	private final List<QueueListenerContainer> containers = new ArrayList<>();

	@AfterEach
	void stopContainers() {
		this.containers.forEach(QueueListenerContainer::stop);
	}

	private QueueListenerContainer container(QueueTemplate queues, String queue, ContainerOptions options,
			JobListener listener) {
		QueueListenerContainer container = new QueueListenerContainer(queue + "-container", queue, queues, listener,
				ListenerTestSupport.fast(ContainerOptions.defaults()).toBuilder().concurrency(options.concurrency())
					.lease(options.lease())
					.acknowledgementMode(options.acknowledgementMode())
					.shutdownTimeout(options.shutdownTimeout())
					.prefetch(options.prefetch())
					.build(),
				null, null);
		this.containers.add(container);
		container.start();
		return container;
	}

	@Test
	void alwaysModeCompletesAJobWhoseListenerThrows() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		AtomicInteger calls = new AtomicInteger();
		container(queues, "always", ContainerOptions.builder().acknowledgementMode(AcknowledgementMode.ALWAYS).build(),
				(job, ack) -> {
					calls.incrementAndGet();
					throw new IllegalStateException("ignored");
				});
		queues.enqueue("always", "x");

		await().atMost(Duration.ofSeconds(10)).until(() -> admin.counts("always").total("completed") == 1);
		assertThat(calls).hasValue(1);
		assertThat(admin.counts("always").dead()).isZero();
	}

	@Test
	void manualModeCompletesOnlyWhatTheListenerAcknowledgesAndRedeliversTheRest() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		Map<String, Integer> seen = new ConcurrentHashMap<>();
		container(queues, "manual",
				ContainerOptions.builder().acknowledgementMode(AcknowledgementMode.MANUAL).lease(Duration.ofMillis(300)).build(),
				(job, ack) -> {
					int count = seen.merge(job.payloadAsString(), 1, Integer::sum);
					if (job.payloadAsString().contains("ack") || count > 1) {
						assertThat(ack.complete()).isEqualTo(AckResult.OK);
					}
				});
		queues.enqueue("manual", "ack");
		queues.enqueue("manual", "forget");

		await().atMost(Duration.ofSeconds(10)).until(() -> admin.counts("manual").total("completed") == 2);
		assertThat(seen).containsEntry("\"ack\"", 1).containsEntry("\"forget\"", 2);
	}

	@Test
	void atMostOnceModeNeverDeliversAFailedJobAgain() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		AtomicInteger calls = new AtomicInteger();
		List<JobState> stateDuringHandler = new ArrayList<>();
		container(queues, "once", ContainerOptions.builder().acknowledgementMode(AcknowledgementMode.AT_MOST_ONCE).build(),
				(job, ack) -> {
					calls.incrementAndGet();
					stateDuringHandler.add(admin.job("once", job.id()).map((info) -> info.state()).orElse(null));
					throw new IllegalStateException("lost on purpose");
				});
		queues.enqueue("once", "x");

		await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() == 1);
		await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("once").total("completed") == 1);
		assertThat(stateDuringHandler).containsExactly((JobState) null);
		assertThat(queues.reserve("once", 1, Duration.ofSeconds(1))).isEmpty();
		assertThat(calls).hasValue(1);
	}

	@Test
	void leaseExtensionKeepsAJobRunningForThreeLeasesFromBeingDeliveredAgain() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		Duration lease = Duration.ofMillis(300);
		AtomicInteger calls = new AtomicInteger();
		container(queues, "slow", ContainerOptions.builder().lease(lease).concurrency(2).build(), (job, ack) -> {
			calls.incrementAndGet();
			LockSupport.parkNanos(lease.multipliedBy(4).toNanos()); // the work: four leases long
		});
		queues.enqueue("slow", "x");

		await().atMost(Duration.ofSeconds(10)).until(() -> admin.counts("slow").total("completed") == 1);
		assertThat(calls).hasValue(1);
		assertThat(admin.counts("slow").total("reaped")).isZero();
	}

	@Test
	void delayedJobEnqueuedWhileTheContainerWaitsRunsWhenDue() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		AtomicInteger calls = new AtomicInteger();
		// the longest poll interval (and half a lease) longer than the wait below: a job run within
		// it ran when it fell due, not at the next poll
		QueueListenerContainer container = new QueueListenerContainer("later-container", "later", queues,
				(job, ack) -> calls.incrementAndGet(), ContainerOptions.builder().concurrency(2)
					.pollInterval(Duration.ofSeconds(30)).lease(Duration.ofMinutes(60)).shutdownTimeout(Duration.ofSeconds(5))
					.build(), null, null);
		this.containers.add(container);
		container.start();
		long start = System.nanoTime();
		queues.enqueue("later", "x", JobOptions.builder().delay(Duration.ofMillis(500)).build());

		await().atMost(Duration.ofSeconds(20)).until(() -> calls.get() == 1);
		// not before it was due (a lower bound, which no load can break)
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(450));
	}

	@Test
	void concurrencyIsNeverExceeded() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		AtomicInteger running = new AtomicInteger();
		AtomicInteger peak = new AtomicInteger();
		container(queues, "capped", ContainerOptions.builder().concurrency(4).build(), (job, ack) -> {
			int now = running.incrementAndGet();
			peak.accumulateAndGet(now, Math::max);
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(15));
			running.decrementAndGet();
		});
		queues.enqueueAll("capped", IntStream.range(0, 60).boxed().toList(), JobOptions.defaults());

		await().atMost(Duration.ofSeconds(20)).until(() -> admin.counts("capped").total("completed") == 60);
		assertThat(peak.get()).isBetween(2, 4);
	}

	@Test
	void reportsItsPrefetchWhileRunning() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueListenerContainer fixed = container(queues, "fixed", ContainerOptions.builder().concurrency(2).prefetch(5).build(),
				(job, ack) -> {
				});
		QueueListenerContainer adaptive = container(queues, "adaptive", ContainerOptions.builder().concurrency(3).build(),
				(job, ack) -> {
				});
		assertThat(fixed.getPrefetch()).isEqualTo(5);
		// an unset prefetch starts at the concurrency
		assertThat(adaptive.getPrefetch()).isEqualTo(3);
		fixed.stop();
		assertThat(fixed.getPrefetch()).isZero();
	}

	@Test
	void stopLetsRunningJobsFinishAndNothingIsDeliveredTwice() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		CountDownLatch started = new CountDownLatch(2);
		Map<String, Integer> calls = new ConcurrentHashMap<>();
		QueueListenerContainer container = container(queues, "graceful",
				ContainerOptions.builder().concurrency(2).shutdownTimeout(Duration.ofSeconds(10)).build(), (job, ack) -> {
					calls.merge(job.id(), 1, Integer::sum);
					started.countDown();
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
				});
		queues.enqueueAll("graceful", List.of("a", "b"), JobOptions.defaults());
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

		container.stop();

		assertThat(admin.counts("graceful").total("completed")).isEqualTo(2);
		assertThat(admin.counts("graceful").pending()).isZero();
		assertThat(calls.values()).containsOnly(1);
	}

	@Test
	void stopGivesBackTheLeasesOfJobsThatOutlastTheShutdownTimeoutAtOnce() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		CountDownLatch started = new CountDownLatch(1);
		QueueListenerContainer container = container(queues, "stuck",
				ContainerOptions.builder().shutdownTimeout(Duration.ofMillis(200)).lease(Duration.ofMinutes(5)).build(),
				(job, ack) -> {
					started.countDown();
					new CountDownLatch(1).await(); // runs until interrupted
				});
		String id = queues.enqueue("stuck", "x").id();
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

		container.stop();

		assertThat(admin.job("stuck", id).orElseThrow().state()).isEqualTo(JobState.READY);
		ReservedJob again = queues.reserve("stuck", 1, Duration.ofSeconds(30)).get(0);
		assertThat(again.id()).isEqualTo(id);
		assertThat(again.attempt()).isEqualTo(1);
	}

	@Test
	void jobThatHangsAtEveryShutdownEndsDeadAfterItsMaxAttempts() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("hangs", "x", JobOptions.builder().maxAttempts(2).build()).id();
		for (int run = 1; run <= 2; run++) {
			CountDownLatch started = new CountDownLatch(1);
			QueueListenerContainer container = container(queues, "hangs",
					ContainerOptions.builder().shutdownTimeout(Duration.ofMillis(200)).lease(Duration.ofMinutes(5)).build(),
					(job, ack) -> {
						started.countDown();
						new CountDownLatch(1).await(); // runs until interrupted
					});
			assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

			container.stop();

			if (run == 1) {
				// given back at once, counted as a run without an outcome
				assertThat(admin.job("hangs", id).orElseThrow().state()).isEqualTo(JobState.READY);
			}
		}
		assertThat(admin.job("hangs", id).orElseThrow().state()).isEqualTo(JobState.DEAD);
		assertThat(admin.deadLetters("hangs", 0, 1).get(0).error()).contains("held 2 times without an outcome");
	}

	@Test
	void startedJobGivenBackAtShutdownNoLongerExpires() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		CountDownLatch started = new CountDownLatch(1);
		QueueListenerContainer container = container(queues, "expiring",
				ContainerOptions.builder().shutdownTimeout(Duration.ofMillis(200)).lease(Duration.ofMinutes(5)).build(),
				(job, ack) -> {
					started.countDown();
					new CountDownLatch(1).await(); // runs until interrupted
				});
		String id = queues.enqueue("expiring", "x", JobOptions.builder().expireAfter(Duration.ofMillis(500)).build())
			.id();
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
		Instant expiry = admin.job("expiring", id).orElseThrow().expireAt();
		await().atMost(Duration.ofSeconds(30)).until(() -> Instant.now().isAfter(expiry.plusMillis(100)));

		container.stop();

		// it had started: expiry ("not started by then") no longer applies
		List<ReservedJob> again = queues.reserve("expiring", 1, Duration.ofSeconds(30));
		assertThat(again).extracting(ReservedJob::id).containsExactly(id);
		assertThat(admin.counts("expiring").total("expired")).isZero();
	}

	@Test
	void restartedContainerTakesBackTheLeasesItsIdentityStillHolds() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("resume", "x").id();
		// a previous run of the same container reserved the job and died without a trace
		String workerId = queues.getSettings().workerId() + "#resume-container";
		queues.reserveBatch("resume", 1, Duration.ofMinutes(10), workerId);
		AtomicInteger calls = new AtomicInteger();

		container(queues, "resume", ContainerOptions.defaults(), (job, ack) -> calls.incrementAndGet());

		await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("resume").total("completed") == 1);
		assertThat(calls).hasValue(1);
		assertThat(admin.job("resume", id)).isEmpty();
	}

	@Test
	void containerWhoseFetchLoopDiesReportsTheFailureAndGivesItsJobsBack() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("broken", List.of(1, 2), JobOptions.defaults());
		TaskExecutor broken = (task) -> {
			throw new BrokenExecutorError();
		};
		QueueListenerContainer container = new QueueListenerContainer("broken-container", "broken", queues,
				(job, ack) -> {
				}, ListenerTestSupport.fast(ContainerOptions.defaults()).toBuilder().concurrency(2).build(), null, broken);
		this.containers.add(container);
		assertThat(container.getFailure()).isNull();
		container.start();

		await().atMost(Duration.ofSeconds(10)).until(() -> container.getFailure() != null);
		assertThat(container.getFailure()).isInstanceOf(BrokenExecutorError.class);
		assertThat(container.isRunning()).isTrue();
		await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("broken").ready() == 2);
		assertThat(admin.counts("broken").inFlight()).isZero();

		container.stop();
		assertThat(container.getFailure()).isNull();
	}

	static class BrokenExecutorError extends Error {

		BrokenExecutorError() {
			super("executor broken for the test");
		}

	}

}
