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

import io.github.redisqueue.core.DurableEnqueue;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.RedisSentinelProcesses;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Sentinel failover in the middle of a drain: a producer enqueues a stream of jobs (each
 * recorded in an outside ledger once its enqueue returned) while a container drains them; the
 * master is SIGKILLed, the sentinels promote the replica, the old master is started again (and
 * made a replica by the sentinels), and producer and container go on without a restart. Lost jobs (acknowledged enqueues never handled), jobs handled twice and the
 * seconds from the kill until jobs flow again are counted and printed; with the durable enqueue
 * (WAIT for one replica) no acknowledged job may be lost. While Redis fails over, job threads
 * whose acknowledgement times out end with that exception, so the waits here do not fail on
 * exceptions of other threads.
 */
// on one server only: it starts and kills a Sentinel set of its own
@Tag("single-node")
class SentinelFailoverIntegrationTests {

	private static final int JOBS = 3000;

	@ParameterizedTest(name = "durable enqueue replicas = {0}")
	@ValueSource(ints = { 0, 1 })
	void aMasterKilledMidDrainIsReplacedAndTheDrainGoesOn(int replicas) {
		try (RedisSentinelProcesses sentinels = RedisSentinelProcesses.start()) {
			RedisSentinelConfiguration configuration = new RedisSentinelConfiguration(sentinels.masterName(),
					Set.copyOf(sentinels.sentinelNodes()));
			LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration);
			factory.setTimeout(Duration.ofSeconds(2).toMillis());
			factory.afterPropertiesSet();
			factory.start();
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
				sentinels.master().kill();
				await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(30)).until(() -> sentinels.currentMasterPort() == sentinels.replica().port());
				// the old master comes back, as operators would bring it, and the sentinels make it
				// the new master's replica: until then a durable enqueue finds no replica
				sentinels.master().restart();
				await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(60)).until(() -> firstNewHandledNanos.get() > 0);
				double resumeSeconds = (firstNewHandledNanos.get() - killedAt) / 1e9;
				await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(120)).until(() -> !producer.isAlive());
				await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
					.until(() -> acknowledged.stream().allMatch(handled::containsKey) || quietFor(lastHandledNanos, 5));

				long lost = acknowledged.stream().filter((id) -> !handled.containsKey(id)).count();
				long twice = handled.values().stream().filter((count) -> count.get() > 1).count();
				List<Long> sorted = latencies.stream().sorted().toList();
				System.out.printf("sentinel failover, durable enqueue replicas=%d: acknowledged %d, handled %d, lost %d, "
						+ "handled twice %d, failed enqueue calls retried %d, seconds from kill to jobs flowing %.1f, "
						+ "enqueue latency before the kill p50 %.3f ms p99 %.3f ms%n", replicas, acknowledged.size(),
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
				factory.destroy();
			}
		}
	}

	private static boolean quietFor(AtomicLong lastHandledNanos, int seconds) {
		return System.nanoTime() - lastHandledNanos.get() > seconds * 1_000_000_000L;
	}

}
