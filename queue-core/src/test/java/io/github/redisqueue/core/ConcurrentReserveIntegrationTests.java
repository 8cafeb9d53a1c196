package io.github.redisqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * At-least-once delivery without double hand-out: while leases hold, every job goes to exactly
 * one of many concurrent consumers.
 */
class ConcurrentReserveIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void eightThreadsReservingTenThousandJobsEachGetDistinctJobsAndAllAreHandedOut() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<Integer> payloads = IntStream.range(0, 10_000).boxed().toList();
		List<EnqueueResult> enqueued = queues.enqueueAll("load", payloads, JobOptions.defaults());
		assertThat(enqueued).hasSize(10_000).noneMatch(EnqueueResult::duplicate);

		Set<String> seen = ConcurrentHashMap.newKeySet();
		AtomicInteger handedOut = new AtomicInteger();
		AtomicInteger acknowledged = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(8);
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < 8; t++) {
			workers.add(pool.submit(() -> {
				start.await();
				while (true) {
					List<ReservedJob> jobs = queues.reserve("load", 25, Duration.ofMinutes(5));
					if (jobs.isEmpty()) {
						return null;
					}
					List<JobRef> refs = new ArrayList<>();
					for (ReservedJob job : jobs) {
						handedOut.incrementAndGet();
						assertThat(seen.add(job.id())).as("job %s handed out twice", job.id()).isTrue();
						refs.add(job.ref());
					}
					queues.completeAll("load", refs).forEach((result) -> {
						assertThat(result).isEqualTo(AckResult.OK);
						acknowledged.incrementAndGet();
					});
				}
			}));
		}
		start.countDown();
		for (Future<?> worker : workers) {
			worker.get(2, TimeUnit.MINUTES);
		}
		pool.shutdown();

		assertThat(handedOut).hasValue(10_000);
		assertThat(acknowledged).hasValue(10_000);
		assertThat(seen).hasSize(10_000);
		QueueCounts counts = admin.counts("load");
		assertThat(counts.pending()).isZero();
		assertThat(counts.total("completed")).isEqualTo(10_000);
	}

}
