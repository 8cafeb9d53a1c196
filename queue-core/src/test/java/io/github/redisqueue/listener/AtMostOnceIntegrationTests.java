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

import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReapResult;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link AcknowledgementMode#AT_MOST_ONCE} never runs a job twice: a prefetched job keeps its
 * lease while it waits for a thread, and a job whose completion at start is refused is not run.
 */
class AtMostOnceIntegrationTests extends AbstractRedisIntegrationTests {

	private final List<QueueListenerContainer> containers = new ArrayList<>();

	@AfterEach
	void stopContainers() {
		this.containers.forEach(QueueListenerContainer::stop);
	}

	private QueueListenerContainer start(String id, QueueTemplate queues, ContainerOptions options,
			JobListener listener) {
		QueueListenerContainer container = new QueueListenerContainer(id, "once", queues, listener, options, null, null);
		this.containers.add(container);
		container.start();
		return container;
	}

	private static ContainerOptions options(Duration lease) {
		return ListenerTestSupport.fast(ContainerOptions.defaults()).toBuilder()
			.acknowledgementMode(AcknowledgementMode.AT_MOST_ONCE)
			.lease(lease)
			.concurrency(1)
			.prefetch(1)
			.build();
	}

	@Test
	void prefetchedJobKeepsItsLeaseWhileItWaitsAndRunsExactlyOnce() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		Duration lease = Duration.ofSeconds(1);
		queues.enqueue("once", "A");
		String idB = queues.enqueue("once", "B").id();
		CountDownLatch aStarted = new CountDownLatch(1);
		CountDownLatch aMayFinish = new CountDownLatch(1);
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		JobListener listener = (job, ack) -> {
			runs.computeIfAbsent(job.payloadAsString(), (key) -> new AtomicInteger()).incrementAndGet();
			if (job.payloadAsString().equals("\"A\"")) {
				aStarted.countDown();
				aMayFinish.await(30, TimeUnit.SECONDS);
			}
		};
		QueueListenerContainer first = start("first", queues, options(lease), listener);
		assertThat(aStarted.await(10, TimeUnit.SECONDS)).isTrue();
		// B was reserved with A (prefetch 1) and waits for the only thread
		assertThat(admin.job("once", idB).orElseThrow().state()).isEqualTo(JobState.ACTIVE);
		Instant firstDeadline = admin.job("once", idB).orElseThrow().leaseUntil();
		// a second consumer, ready to take B the moment it is back in the queue
		start("second", queues, options(lease), listener);

		// A runs past B's first lease (about three leases in all), then a reaper pass
		await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(firstDeadline.plusMillis(1500)));
		ReapResult reaped = admin.reapOnce();
		// had B been taken back, the second consumer takes (and runs) it before A ends
		await().atMost(Duration.ofSeconds(30))
			.until(() -> admin.job("once", idB).map((info) -> info.state() == JobState.ACTIVE).orElse(true));
		aMayFinish.countDown();

		await().atMost(Duration.ofSeconds(10)).until(() -> first.getRunningJobs() == 0 && runs.containsKey("\"B\""));
		assertThat(runs.get("\"A\"")).hasValue(1);
		assertThat(runs.get("\"B\"")).as("runs of the prefetched job B").hasValue(1);
		assertThat(reaped.reclaimed()).as("leases the reaper found run out").isZero();
		assertThat(admin.counts("once").pending()).isZero();
	}

	@Test
	void jobWhoseCompletionAtStartIsRefusedDoesNotRun() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("once", "A");
		String idB = queues.enqueue("once", "B").id();
		CountDownLatch aStarted = new CountDownLatch(1);
		CountDownLatch aMayFinish = new CountDownLatch(1);
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		QueueListenerContainer first = start("first", queues, options(Duration.ofSeconds(30)), (job, ack) -> {
			runs.computeIfAbsent(job.payloadAsString(), (key) -> new AtomicInteger()).incrementAndGet();
			if (job.payloadAsString().equals("\"A\"")) {
				aStarted.countDown();
				aMayFinish.await(30, TimeUnit.SECONDS);
			}
		});
		assertThat(aStarted.await(10, TimeUnit.SECONDS)).isTrue();

		// B is taken from the container behind its back (as a reaper would after a lost lease)
		// and someone else reserves it: the container's token for B is stale now
		assertThat(queues.releaseWorker("once", first.getWorkerId())).isEqualTo(1);
		List<ReservedJob> stolen = queues.reserve("once", 1, Duration.ofMinutes(1));
		assertThat(stolen).extracting(ReservedJob::id).containsExactly(idB);
		aMayFinish.countDown();

		await().atMost(Duration.ofSeconds(10)).until(() -> first.getRunningJobs() == 0);
		assertThat(runs.get("\"A\"")).hasValue(1);
		assertThat(runs).as("handler runs by payload").doesNotContainKey("\"B\"");
		assertThat(admin.job("once", idB).orElseThrow().state()).isEqualTo(JobState.ACTIVE);
	}

}
