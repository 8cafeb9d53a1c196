package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import io.github.redisqueue.core.DurableEnqueue;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueTemplate;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A failover in the middle of a drain: a producer enqueues a stream of jobs with idempotency
 * keys (each recorded in an outside ledger once its enqueue returned, sent again when a call
 * fails) while a container drains them; {@code kill} SIGKILLs the master, {@code promoted} tells
 * when its replica took over, {@code restore} brings the old master back (as a replica); producer
 * and container go on without a restart. Lost jobs (acknowledged enqueues never handled), jobs
 * handled twice and the seconds from the kill until new jobs are handled are printed; with the
 * durable enqueue no acknowledged job may be lost. While Redis fails over, job threads whose
 * acknowledgement times out end with that exception, so the waits here do not fail on exceptions
 * of other threads.
 */
final class FailoverDrain {

	private static final int JOBS = 3000;

	private FailoverDrain() {
	}

	static void run(String topology, LettuceConnectionFactory factory, int replicas, Runnable kill,
			BooleanSupplier promoted, Runnable restore) {
		QueueTemplate queues = new QueueTemplate(factory);
		queues.setEnqueueTimeout(Duration.ofSeconds(2));
		queues.setDurableEnqueue(new DurableEnqueue(replicas, Duration.ofSeconds(1)));
		Set<Integer> acknowledged = ConcurrentHashMap.newKeySet();
		Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();
		AtomicLong lastHandledNanos = new AtomicLong();
		// jobs whose enqueue returned after the kill: the first of them handled marks the resumption
		AtomicInteger firstNewId = new AtomicInteger(Integer.MAX_VALUE);
		AtomicLong firstNewHandledNanos = new AtomicLong();
		QueueListenerContainer container = new QueueListenerContainer("failover-container", "failover", queues,
				(job, ack) -> {
					int id = Integer.parseInt(job.payloadAsString());
					handled.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
					lastHandledNanos.set(System.nanoTime());
					if (id >= firstNewId.get()) {
						firstNewHandledNanos.compareAndSet(0, System.nanoTime());
					}
					ack.complete();
				}, ListenerTestSupport.fast(ContainerOptions.defaults()).toBuilder().concurrency(4)
					.lease(Duration.ofSeconds(5))
					.build(),
				null, null);
		AtomicBoolean producing = new AtomicBoolean(true);
		AtomicInteger failedCalls = new AtomicInteger();
		// the enqueue latencies before the kill, for the cost of waiting for a replica
		List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
		AtomicBoolean killed = new AtomicBoolean();
		Thread producer = new Thread(() -> {
			for (int id = 0; id < JOBS && producing.get(); id++) {
				JobOptions options = JobOptions.builder().idempotencyKey("job-" + id).build();
				while (producing.get()) {
					try {
						long start = System.nanoTime();
						queues.enqueue("failover", id, options);
						if (!killed.get()) {
							latencies.add(System.nanoTime() - start);
						}
						acknowledged.add(id);
						break;
					}
					catch (RuntimeException ex) {
						// Redis is failing over: send the same job again; its key makes it once
						failedCalls.incrementAndGet();
					}
				}
			}
		}, "failover-producer");
		try {
			container.start();
			producer.start();
			await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= JOBS / 3);

			killed.set(true);
			long killedAt = System.nanoTime();
			firstNewId.set(acknowledged.size() + 100);
			kill.run();
			await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(30)).until(promoted::getAsBoolean);
			// the old master comes back, as operators would bring it, and the sentinels make it
			// the new master's replica: until then a durable enqueue finds no replica
			restore.run();
			await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(60)).until(() -> firstNewHandledNanos.get() > 0);
			double resumeSeconds = (firstNewHandledNanos.get() - killedAt) / 1e9;
			await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(120)).until(() -> !producer.isAlive());
			await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
				.until(() -> acknowledged.stream().allMatch(handled::containsKey) || quietFor(lastHandledNanos, 5));

			long lost = acknowledged.stream().filter((id) -> !handled.containsKey(id)).count();
			long twice = handled.values().stream().filter((count) -> count.get() > 1).count();
			List<Long> sorted = latencies.stream().sorted().toList();
			System.out.printf("%s failover, durable enqueue replicas=%d: acknowledged %d, handled %d, lost %d, "
					+ "handled twice %d, failed enqueue calls retried %d, seconds from kill to jobs flowing %.1f, "
					+ "enqueue latency before the kill p50 %.3f ms p99 %.3f ms%n", topology, replicas, acknowledged.size(),
					handled.size(), lost, twice, failedCalls.get(), resumeSeconds, sorted.get(sorted.size() / 2) / 1e6,
					sorted.get(sorted.size() * 99 / 100) / 1e6);
			assertThat(acknowledged).hasSize(JOBS);
			if (replicas > 0) {
				assertThat(lost).as("acknowledged enqueues lost with the master").isZero();
			}
		}
		finally {
			producing.set(false);
			container.stop();
		}
	}

	private static boolean quietFor(AtomicLong lastHandledNanos, int seconds) {
		return System.nanoTime() - lastHandledNanos.get() > seconds * 1_000_000_000L;
	}

}
