package io.github.redisqueue.listener;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.testing.redis.RedisClusterProcesses;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.RespClient;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis Cluster failover under a queue spread over three partitions on three masters: the
 * master of partition 0 is SIGKILLed in the middle of a drain. Three producers, one per partition
 * (by partition key), enqueue with idempotency keys and send a job again when a call fails, each
 * acknowledged enqueue recorded in a ledger outside Redis; one container consumes all partitions.
 * While partition 0's replica is being promoted, the jobs of the two other partitions keep being
 * produced and handled; afterwards partition 0 flows again, with no restart of producers or
 * container. Lost (acknowledged, never handled) and twice-handled jobs are printed, with the jobs
 * of the other partitions handled while partition 0 had no master and their longest pause.
 */
// on one server only: it starts and kills a cluster of its own
@Tag("single-node")
class PartitionedFailoverIntegrationTests {

	private static final int JOBS_PER_PARTITION = 1000;

	// partition keys of partitions 0, 1 and 2 of three (CRC-32 modulo 3)
	private static final List<String> KEYS = List.of("k0", "k1", "k3");

	/**
	 * Run with Redis's default {@code cluster-require-full-coverage yes} and with {@code no}; the
	 * client rejects commands for a node it is not connected to, so a reserve that reaches the dead
	 * master fails at once and the partition is left out, instead of every such reserve waiting
	 * for the command timeout.
	 */
	@ParameterizedTest(name = "cluster-require-full-coverage {0}")
	@ValueSource(strings = { "yes", "no" })
	void theOtherPartitionsFlowWhileOnePartitionsMasterFailsOver(String fullCoverage) {
		try (RedisClusterProcesses cluster = RedisClusterProcesses.start()) {
			for (RedisServerProcess node : cluster.masters()) {
				config(node, fullCoverage);
			}
			for (RedisServerProcess node : cluster.replicas()) {
				config(node, fullCoverage);
			}
			// a command for the dead master fails at once rather than after the command timeout
			LettuceConnectionFactory factory = ClusterFailoverIntegrationTests.followingFailovers(cluster, true);
			try {
				run(cluster, factory, fullCoverage);
			}
			finally {
				factory.destroy();
			}
		}
	}

	private static void config(RedisServerProcess node, String fullCoverage) {
		try {
			RespClient.call(node.host(), node.port(), "CONFIG", "SET", "cluster-require-full-coverage", fullCoverage);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void run(RedisClusterProcesses cluster, LettuceConnectionFactory factory, String fullCoverage) {
		QueueTemplate queues = new QueueTemplate(factory, new JacksonJobSerializer(),
				QueueSettings.builder().partitions("split", 3).build());
		queues.setEnqueueTimeout(Duration.ofSeconds(2));
		QueueAdmin admin = new QueueAdmin(queues);
		String tag = admin.partitionCounts("split").get(0).hashTag();
		RedisServerProcess master = cluster.masterOf("{" + tag + "}:ready");
		RedisServerProcess replica = cluster.replicaOf(master);

		Set<Integer> acknowledged = ConcurrentHashMap.newKeySet();
		Map<Integer, AtomicInteger> handled = new ConcurrentHashMap<>();
		// handled jobs of partitions 1 and 2 while partition 0 had no master
		AtomicBoolean outage = new AtomicBoolean();
		AtomicInteger handledDuringOutage = new AtomicInteger();
		// the first job of partition 0 acknowledged after the kill, and when one such was handled
		AtomicInteger firstNewOfPartition0 = new AtomicInteger(Integer.MAX_VALUE);
		AtomicLong resumedNanos = new AtomicLong();
		AtomicLong lastHandledNanos = new AtomicLong();
		// during the failover: when a job of partitions 1 and 2 was last handled, and the longest gap
		AtomicLong lastOtherNanos = new AtomicLong();
		AtomicLong longestGapNanos = new AtomicLong();
		QueueListenerContainer container = new QueueListenerContainer("split-container", "split", queues,
				(job, ack) -> {
					int id = Integer.parseInt(job.payloadAsString());
					handled.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
					lastHandledNanos.set(System.nanoTime());
					if (outage.get() && id >= JOBS_PER_PARTITION) {
						handledDuringOutage.incrementAndGet();
						long now = System.nanoTime();
						long last = lastOtherNanos.getAndSet(now);
						longestGapNanos.accumulateAndGet(now - last, Math::max);
					}
					if (id < JOBS_PER_PARTITION && id >= firstNewOfPartition0.get()) {
						resumedNanos.compareAndSet(0, System.nanoTime());
					}
				}, ListenerTestSupport.fast(ContainerOptions.defaults()).toBuilder().concurrency(4)
					.lease(Duration.ofSeconds(5))
					.build(),
				null, null);
		AtomicBoolean producing = new AtomicBoolean(true);
		AtomicInteger failedCalls = new AtomicInteger();
		AtomicInteger producedOfPartition0 = new AtomicInteger();
		List<Thread> producers = new ArrayList<>();
		for (int partition = 0; partition < 3; partition++) {
			int first = partition * JOBS_PER_PARTITION;
			String key = KEYS.get(partition);
			boolean zero = partition == 0;
			producers.add(new Thread(() -> {
				for (int id = first; id < first + JOBS_PER_PARTITION && producing.get(); id++) {
					String jobKey = keyOfPartition("job-" + id, KEYS.indexOf(key));
					JobOptions options = JobOptions.builder().partitionKey(jobKey).idempotencyKey(jobKey).build();
					while (producing.get()) {
						try {
							queues.enqueue("split", id, options);
							acknowledged.add(id);
							if (zero) {
								producedOfPartition0.incrementAndGet();
							}
							break;
						}
						catch (RuntimeException ex) {
							// its master is failing over: the same job again; its key makes it once
							failedCalls.incrementAndGet();
							LockSupport.parkNanos(10_000_000);
						}
					}
					// a steady stream rather than a burst, so that the kill falls in the middle
					LockSupport.parkNanos(1_000_000);
				}
			}, "split-producer-" + partition));
		}
		try {
			container.start();
			producers.forEach(Thread::start);
			await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(30))
				.until(() -> producedOfPartition0.get() >= JOBS_PER_PARTITION / 3);

			firstNewOfPartition0.set(producedOfPartition0.get() + 50);
			long killedAt = System.nanoTime();
			lastOtherNanos.set(killedAt);
			outage.set(true);
			master.kill();
			await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(30))
				.until(() -> ClusterFailoverIntegrationTests.isMaster(replica));
			outage.set(false);
			longestGapNanos.accumulateAndGet(System.nanoTime() - lastOtherNanos.get(), Math::max);
			double outageSeconds = (System.nanoTime() - killedAt) / 1e9;
			master.restart();
			await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(60)).until(() -> resumedNanos.get() > 0);
			double resumeSeconds = (resumedNanos.get() - killedAt) / 1e9;
			await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(120))
				.until(() -> producers.stream().noneMatch(Thread::isAlive));
			await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
				.until(() -> acknowledged.stream().allMatch(handled::containsKey)
						|| System.nanoTime() - lastHandledNanos.get() > 5_000_000_000L);

			long lost = acknowledged.stream().filter((id) -> !handled.containsKey(id)).count();
			long twice = handled.values().stream().filter((count) -> count.get() > 1).count();
			System.out.printf("partitioned cluster failover (3 partitions, partition 0's master killed, "
					+ "cluster-require-full-coverage %s): acknowledged %d, "
					+ "handled %d, lost %d, handled twice %d, failed enqueue calls retried %d, seconds without a master "
					+ "for partition 0 %.1f, jobs of partitions 1 and 2 handled meanwhile %d (longest pause %.2f s), "
					+ "seconds from kill to partition 0 flowing %.1f%n", fullCoverage, acknowledged.size(), handled.size(), lost, twice, failedCalls.get(),
					outageSeconds, handledDuringOutage.get(), longestGapNanos.get() / 1e9, resumeSeconds);
			assertThat(acknowledged).hasSize(3 * JOBS_PER_PARTITION);
			assertThat(handledDuringOutage.get()).as("jobs of the other partitions handled during the failover")
				.isGreaterThan(50);
		}
		finally {
			producing.set(false);
			container.stop();
		}
	}

	/**
	 * A key of the job's own that routes to the partition (CRC-32 modulo 3): a job's partition key
	 * and idempotency key must be the same on a partitioned queue.
	 */
	private static String keyOfPartition(String job, int partition) {
		for (int n = 0;; n++) {
			String candidate = job + "-" + n;
			java.util.zip.CRC32 crc = new java.util.zip.CRC32();
			crc.update(candidate.getBytes(java.nio.charset.StandardCharsets.UTF_8));
			if (crc.getValue() % 3 == partition) {
				return candidate;
			}
		}
	}

}
