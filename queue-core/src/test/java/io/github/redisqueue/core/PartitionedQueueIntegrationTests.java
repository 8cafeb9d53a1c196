package io.github.redisqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.testing.redis.TestRedis;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A queue spread over partitions: placement of the partitions' hash tags, routing of producers,
 * ids that name their partition, reserves that take from every partition, and the admin
 * operations that sum or merge the partitions.
 */
class PartitionedQueueIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private QueueTemplate template(int partitions, String... queues) {
		QueueSettings.Builder settings = QueueSettings.builder();
		for (String queue : queues) {
			settings.partitions(queue, partitions);
		}
		return new QueueTemplate(this.connectionFactory, new io.github.redisqueue.support.converter.JacksonJobSerializer(),
				settings.build());
	}

	@Test
	void partitionTagsFallInTheMiddleOfTheirShareOfTheSlots() {
		for (int count : new int[] { 2, 3, 4, 8, 64 }) {
			double share = 16384.0 / count;
			for (int i = 0; i < count; i++) {
				String tag = QueueKeys.partitionTag("rq", "orders", i, count);
				int slot = SlotHash.getSlot(tag);
				assertThat(slot).as("partition %d of %d (%s)", i, count, tag)
					.isBetween((int) Math.ceil(share * i + share / 4), (int) Math.floor(share * i + share * 3 / 4));
			}
		}
		assertThat(new QueueKeys("rq", "orders", 1, 3).key("ready"))
			.startsWith("{" + QueueKeys.partitionTag("rq", "orders", 1, 3) + "}:");
	}

	@Test
	void onAClusterThePartitionsOfAQueueSitOnDifferentMasters() {
		QueueTemplate queues = template(3, "spread");
		queues.enqueue("spread", "x");
		Set<Integer> slots = new HashSet<>();
		for (PartitionCounts partition : new QueueAdmin(queues).partitionCounts("spread")) {
			slots.add(partition.slot());
		}
		assertThat(slots).hasSize(3);
		if (TestRedis.isCluster()) {
			try (RedisClusterConnection cluster = this.connectionFactory.getClusterConnection()) {
				Set<String> masters = new HashSet<>();
				for (int slot : slots) {
					masters.add(cluster.clusterGetNodeForSlot(slot).getId());
				}
				assertThat(masters).as("masters of slots %s", slots).hasSize(3);
			}
		}
	}

	@Test
	void jobsWithoutAKeyAreSpreadEvenlyAndIdsNameTheirPartition() {
		QueueTemplate queues = template(3, "even");
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			ids.add(queues.enqueue("even", "single-" + i).id());
		}
		queues.enqueueAll("even", IntStream.range(0, 30).mapToObj((i) -> "bulk-" + i).toList(), JobOptions.defaults())
			.forEach((result) -> ids.add(result.id()));

		assertThat(ids).doesNotHaveDuplicates();
		List<PartitionCounts> partitions = admin.partitionCounts("even");
		assertThat(partitions).extracting(PartitionCounts::name).containsExactly("even~0", "even~1", "even~2");
		assertThat(partitions).allSatisfy((partition) -> assertThat(partition.counts().ready()).isEqualTo(20));
		for (String id : ids) {
			int partition = QueueTemplate.partitionOfId(id, 3);
			assertThat(admin.job("even", id)).as("job %s in partition %d", id, partition).isPresent();
		}
		QueueCounts counts = admin.counts("even");
		assertThat(counts.queue()).isEqualTo("even");
		assertThat(counts.ready()).isEqualTo(60);
		assertThat(counts.total("enqueued")).isEqualTo(60);
		assertThat(admin.queues()).containsExactly("even");
		assertThat(admin.overview().queues()).containsOnlyKeys("even");
		assertThat(admin.overview().queues().get("even").ready()).isEqualTo(60);
	}

	@Test
	void jobsOfOneKeyGoToOnePartitionAndKeepTheirOrderAndPriorities() {
		QueueTemplate queues = template(3, "keyed");
		Map<String, List<String>> enqueued = new TreeMap<>();
		for (int i = 0; i < 40; i++) {
			for (String key : List.of("alpha", "beta", "gamma", "delta")) {
				String payload = key + "-" + i;
				queues.enqueue("keyed", payload, JobOptions.builder().partitionKey(key).build());
				enqueued.computeIfAbsent(key, (k) -> new ArrayList<>()).add(payload);
			}
		}
		// a later, more urgent job of one key runs before that key's earlier ones
		queues.enqueue("keyed", "alpha-urgent", JobOptions.builder().partitionKey("alpha").priority(10).build());
		enqueued.get("alpha").add(0, "alpha-urgent");

		Map<String, List<String>> seen = new TreeMap<>();
		Map<String, Set<Integer>> partitionsOfKey = new TreeMap<>();
		List<Job<String>> batch;
		while (!(batch = queues.reserve("keyed", 7, LEASE, String.class)).isEmpty()) {
			for (Job<String> job : batch) {
				String key = job.payload().substring(0, job.payload().indexOf('-'));
				seen.computeIfAbsent(key, (k) -> new ArrayList<>()).add(job.payload());
				partitionsOfKey.computeIfAbsent(key, (k) -> new HashSet<>())
					.add(QueueTemplate.partitionOfId(job.id(), 3));
				assertThat(queues.complete("keyed", job.ref())).isEqualTo(AckResult.OK);
			}
		}
		assertThat(seen).isEqualTo(enqueued);
		partitionsOfKey.forEach((key, partitions) -> assertThat(partitions).as(key).hasSize(1));
	}

	@Test
	void uniquenessAndIdempotencyHoldAcrossPartitions() {
		QueueTemplate queues = template(4, "dedup");
		EnqueueResult first = queues.enqueue("dedup", "a", JobOptions.builder().uniqueKey("order-1").build());
		for (int i = 0; i < 8; i++) {
			EnqueueResult again = queues.enqueue("dedup", "a", JobOptions.builder().uniqueKey("order-1").build());
			assertThat(again.duplicate()).isTrue();
			assertThat(again.id()).isEqualTo(first.id());
		}
		EnqueueResult idem = queues.enqueue("dedup", "b", JobOptions.builder().idempotencyKey("req-7").build());
		for (int i = 0; i < 8; i++) {
			assertThat(queues.enqueue("dedup", "b", JobOptions.builder().idempotencyKey("req-7").build()).id())
				.isEqualTo(idem.id());
		}
		assertThat(new QueueAdmin(queues).counts("dedup").ready()).isEqualTo(2);
	}

	@Test
	void everyOperationOnAJobFindsItsPartition() {
		QueueTemplate queues = template(3, "ops");
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("ops", IntStream.range(0, 12).mapToObj((i) -> "job-" + i).toList(), JobOptions.defaults());
		List<ReservedJob> jobs = queues.reserve("ops", 12, LEASE);
		assertThat(jobs).hasSize(12);
		assertThat(jobs).extracting((job) -> QueueTemplate.partitionOfId(job.id(), 3)).containsOnly(0, 1, 2);
		assertThat(jobs).allSatisfy((job) -> assertThat(job.queue()).isEqualTo("ops"));

		List<JobRef> refs = jobs.stream().map(ReservedJob::ref).toList();
		assertThat(queues.extendAll("ops", refs, Duration.ofMinutes(2))).allSatisfy(
				(result) -> assertThat(result.result()).isEqualTo(AckResult.OK));
		// completions of jobs of every partition in one call, answered in the order given
		List<JobRef> mixed = List.of(refs.get(0), refs.get(5), new JobRef(refs.get(1).id(), 99), refs.get(10));
		assertThat(queues.completeAll("ops", mixed)).containsExactly(AckResult.OK, AckResult.OK, AckResult.STALE_TOKEN,
				AckResult.OK);
		assertThat(queues.retry("ops", refs.get(1), "again", Duration.ZERO)).isEqualTo(FailResult.RETRY_SCHEDULED);
		assertThat(queues.deadLetter("ops", refs.get(2), "broken")).isEqualTo(FailResult.DEAD_LETTERED);
		assertThat(queues.deadLetter("ops", refs.get(3), "broken too")).isEqualTo(FailResult.DEAD_LETTERED);
		assertThat(queues.releaseAll("ops", refs.subList(4, 5))).containsExactly(AckResult.OK);
		assertThat(admin.job("ops", refs.get(2).id())).get().extracting(JobInfo::state).isEqualTo(JobState.DEAD);
		assertThat(queues.storeResult("ops", refs.get(6).id(), "result-6")).isTrue();
		assertThat(queues.result("ops", refs.get(6).id(), String.class)).contains("result-6");

		QueueCounts counts = admin.counts("ops");
		assertThat(counts.inFlight()).isEqualTo(12 - 3 - 1 - 2 - 1);
		assertThat(counts.ready()).isEqualTo(2);
		assertThat(counts.dead()).isEqualTo(2);
		assertThat(counts.total("completed")).isEqualTo(3);

		// dead letters of all partitions, newest first, paged
		List<DeadJob> dead = admin.deadLetters("ops", 0, 10);
		assertThat(dead).extracting(DeadJob::id).containsExactly(refs.get(3).id(), refs.get(2).id());
		assertThat(admin.deadLetters("ops", 1, 10)).extracting(DeadJob::id).containsExactly(refs.get(2).id());
		assertThat(admin.retryDead("ops", refs.get(2).id())).isTrue();
		assertThat(admin.retryAllDead("ops")).isEqualTo(1);
		assertThat(admin.counts("ops").ready()).isEqualTo(4);

		// a worker's leases in every partition are given back
		assertThat(queues.releaseWorker("ops", queues.getSettings().workerId())).isEqualTo(5);
		assertThat(admin.counts("ops").ready()).isEqualTo(9);
	}

	@Test
	void pauseAndResumeActOnEveryPartition() {
		QueueTemplate queues = template(3, "paused");
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("paused", List.of("a", "b", "c", "d", "e", "f"), JobOptions.defaults());
		assertThat(admin.pause("paused")).isTrue();
		assertThat(admin.pause("paused")).isFalse();
		assertThat(admin.counts("paused").paused()).isTrue();
		assertThat(queues.reserve("paused", 10, LEASE)).isEmpty();
		assertThat(admin.resume("paused")).isTrue();
		assertThat(queues.reserve("paused", 10, LEASE)).hasSize(6);
	}

	@Test
	void oneReserveTakesWhatIsWantedFromWhicheverPartitionsHoldJobs() {
		QueueTemplate queues = template(3, "uneven");
		// all in one partition: a reserve of 10 still gets 10
		queues.enqueueAll("uneven", IntStream.range(0, 20).mapToObj((i) -> "j" + i).toList(),
				JobOptions.builder().partitionKey("one-key").build());
		assertThat(queues.reserve("uneven", 10, LEASE)).hasSize(10);
		assertThat(queues.reserve("uneven", 1, LEASE)).hasSize(1);
		assertThat(queues.reserve("uneven", 100, LEASE)).hasSize(9);
		assertThat(queues.reserve("uneven", 100, LEASE)).isEmpty();
	}

	@Test
	void oneReserveRecordsTheCompletionsOfEveryPartition() {
		QueueTemplate queues = template(3, "acks");
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("acks", IntStream.range(0, 9).mapToObj((i) -> "j" + i).toList(), JobOptions.defaults());
		List<JobRef> taken = queues.reserve("acks", 6, LEASE).stream().map(ReservedJob::ref).toList();
		assertThat(taken).extracting((ref) -> QueueTemplate.partitionOfId(ref.id(), 3)).containsOnly(0, 1, 2);
		List<JobRef> sent = new ArrayList<>(taken);
		sent.set(5, new JobRef(taken.get(5).id(), 42));
		sent.add(new JobRef("999999", 1));
		Reservation reservation = queues.reserveBatch("acks", 2, LEASE, "worker", sent);
		assertThat(reservation.jobs()).hasSize(2);
		assertThat(reservation.refusedCompletions()).isEqualTo(1);
		assertThat(reservation.missingCompletions()).isEqualTo(1);
		assertThat(reservation.unsentCompletions()).isEmpty();
		QueueCounts counts = admin.counts("acks");
		assertThat(counts.total("completed")).isEqualTo(5);
		assertThat(counts.inFlight()).isEqualTo(1 + 2);
		assertThat(counts.ready()).isEqualTo(1);
	}

	@Test
	void aReserveInTurnSendsTheCompletionsOfEveryPartitionInOneRound() {
		QueueTemplate queues = template(3, "turns");
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("turns", IntStream.range(0, 30).mapToObj((i) -> "j" + i).toList(), JobOptions.defaults());
		List<JobRef> taken = queues.reserve("turns", 6, LEASE).stream().map(ReservedJob::ref).toList();
		assertThat(taken).extracting((ref) -> QueueTemplate.partitionOfId(ref.id(), 3)).containsOnly(0, 1, 2);

		// every partition holds jobs: the one in turn fills the reserve alone
		Reservation reservation = queues.reserveInTurn("turns", 3, LEASE, "worker", taken, 0, 3);
		assertThat(reservation.jobs()).hasSize(3);
		Set<Integer> reached = new HashSet<>();
		reservation.jobs().forEach((job) -> reached.add(QueueTemplate.partitionOfId(job.id(), 3)));
		assertThat(reached).hasSize(1);
		int turn = reached.iterator().next();
		assertThat(turn).isBetween(0, 2);
		// the other partitions' completions went by the complete script in the same round
		assertThat(reservation.unsentCompletions()).isEmpty();
		assertThat(admin.counts("turns").total("completed")).isEqualTo(6);

		// a reserve that asks more than the partition in turn holds reaches every partition
		Reservation more = queues.reserveInTurn("turns", 30, LEASE, "worker", List.of(), 0, 30);
		assertThat(more.unsentCompletions()).isEmpty();
		assertThat(more.jobs()).hasSize(30 - 6 - 3);
	}

	@Test
	void aReserveInTurnHandsOutTheJobsThatStartAtOnceFirstWhicheverRoundTookThem() {
		QueueTemplate queues = template(3, "starts");
		// keys of partitions 0, 1 and 2 (a keyed enqueue leaves the turn alone: partition 0 comes first)
		queues.enqueue("starts", "p0", JobOptions.builder().partitionKey("k0").build());
		queues.enqueue("starts", "p1", JobOptions.builder().partitionKey("k1").build());
		queues.enqueueAll("starts", IntStream.range(0, 10).mapToObj((i) -> "p2-" + i).toList(),
				JobOptions.builder().partitionKey("k3").build());

		// 3 of 10 start at once. Partition 0 has 1 (started); the 9 left are shared by partitions 1
		// and 2, 2 to start at once on partition 1, which has 1; partition 2 hands out its share of 4
		// reserved ahead, and the start left over goes with the third round, to partition 2 again
		Reservation reservation = queues.reserveInTurn("starts", 10, LEASE, "worker", List.of(), 0, 3);
		List<String> ids = reservation.jobs().stream().map(ReservedJob::id).toList();
		assertThat(ids).hasSize(10);
		assertThat(QueueTemplate.partitionOfId(ids.get(0), 3)).as("partition first in turn").isZero();
		assertThat(reservation.reservedAhead()).as("reserved ahead: those after the first 3")
			.containsExactlyInAnyOrderElementsOf(ids.subList(3, 10));
	}

	@Test
	void reservesTakeTurnsAcrossPartitions() {
		QueueTemplate queues = template(3, "fair");
		// keys of partitions 0, 1 and 2
		for (String key : List.of("k0", "k1", "k3")) {
			queues.enqueueAll("fair", IntStream.range(0, 30).mapToObj((i) -> key + i).toList(),
					JobOptions.builder().partitionKey(key).build());
		}
		Map<Integer, Integer> perPartition = new TreeMap<>();
		for (int i = 0; i < 30; i++) {
			for (ReservedJob job : queues.reserve("fair", 1, LEASE)) {
				perPartition.merge(QueueTemplate.partitionOfId(job.id(), 3), 1, Integer::sum);
			}
		}
		assertThat(perPartition).containsOnlyKeys(0, 1, 2);
		assertThat(perPartition.values()).allSatisfy((taken) -> assertThat(taken).isEqualTo(10));
	}

	@Test
	void batchesOfAPartitionedQueueLiveInOnePartitionAndCompleteOnce() {
		QueueTemplate queues = template(3, "tiles", "tiles-done");
		QueueAdmin admin = new QueueAdmin(queues);
		List<Batch> batches = new ArrayList<>();
		for (int b = 0; b < 3; b++) {
			batches.add(queues.batch("tiles").maxConcurrency(2).onComplete("tiles-done").addAll(List.of("x", "y", "z"))
				.submit());
		}
		batches.add(queues.batch("tiles").id("named-batch").maxConcurrency(2).addAll(List.of("x", "y")).submit());
		Set<Integer> partitions = new HashSet<>();
		for (Batch batch : batches) {
			partitions.add(QueueTemplate.partitionOfId(batch.id(), 3));
			assertThat(queues.batchStatus("tiles", batch.id())).get().extracting(BatchStatus::total)
				.isEqualTo(batch.id().equals("named-batch") ? 2L : 3L);
		}
		assertThat(partitions).as("batches spread over partitions").hasSizeGreaterThan(1);
		assertThat(admin.batches("tiles", 0, 10)).hasSize(4);

		int handled = 0;
		List<ReservedJob> jobs;
		while (!(jobs = queues.reserve("tiles", 100, LEASE)).isEmpty()) {
			// the cap holds per batch: at most 2 of each of the 4 batches at once
			assertThat(jobs.size()).isLessThanOrEqualTo(8);
			for (ReservedJob job : jobs) {
				assertThat(queues.complete("tiles", job.ref())).isEqualTo(AckResult.OK);
				handled++;
			}
		}
		assertThat(handled).isEqualTo(11);
		for (Batch batch : batches) {
			assertThat(batch.status().state()).isEqualTo(BatchState.COMPLETED);
		}
		// one completion job per batch with onComplete, in the partitioned completion queue
		assertThat(admin.counts("tiles-done").ready()).isEqualTo(3);
		queues.forwardBatchCompletions("tiles");
		assertThat(admin.counts("tiles-done").ready()).isEqualTo(3);
	}

	@Test
	void theWorkerRegistryAndTheReaperCoverEveryPartition() {
		QueueTemplate queues = template(3, "reaped");
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("reaped", List.of("a", "b", "c", "d", "e", "f"), JobOptions.defaults());
		assertThat(queues.reserveBatch("reaped", 6, Duration.ofMillis(50), "gone-worker").jobs()).hasSize(6);
		admin.heartbeat(new WorkerInfo("live-worker", "host", List.of("reaped"), 0, null, null), Duration.ofMinutes(1));
		for (String partition : queues.partitionNames("reaped")) {
			int index = Integer.parseInt(partition.substring(partition.indexOf('~') + 1));
			QueueKeys k = queues.partitions("reaped")[index];
			assertThat(this.redis.opsForZSet().score(k.key("live"), "live-worker")).isNotNull();
		}
		org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
			admin.reapOnce("reaped");
			return admin.counts("reaped").ready() == 6;
		});
		assertThat(admin.counts("reaped").total("reaped")).isEqualTo(6);
	}

	@Test
	void aTemplateWithAnotherPartitionCountIsRefused() {
		template(3, "fixed").enqueue("fixed", "x");
		assertThatThrownBy(() -> template(2, "fixed").enqueue("fixed", "y")).isInstanceOf(QueueException.class)
			.hasMessageContaining("spread over 3 partition(s) in Redis")
			.hasMessageContaining("configures 2");
		assertThatThrownBy(() -> new QueueTemplate(this.connectionFactory).enqueue("fixed", "y"))
			.isInstanceOf(QueueException.class)
			.hasMessageContaining("configures 1");
		assertThat(new QueueAdmin(template(3, "fixed")).counts("fixed").ready()).isEqualTo(1);
	}

	@Test
	void aQueueHoldingJobsCannotBecomePartitioned() {
		new QueueTemplate(this.connectionFactory).enqueue("plain", "x");
		assertThatThrownBy(() -> template(3, "plain").enqueue("plain", "y")).isInstanceOf(QueueException.class)
			.hasMessageContaining("holds jobs as a queue of one partition");
		assertThat(new QueueAdmin(new QueueTemplate(this.connectionFactory)).counts("plain").ready()).isEqualTo(1);
	}

	@Test
	void idsOfCallerNamedBatchesAndRoutingKeysPickAStablePartition() {
		assertThat(QueueTemplate.partitionOfId("300", 3)).isZero();
		assertThat(QueueTemplate.partitionOfId("301", 3)).isEqualTo(1);
		assertThat(QueueTemplate.partitionOfId("order-42", 5)).isEqualTo(QueueTemplate.partitionOfKey("order-42", 5));
		// CRC-32 of the UTF-8 bytes, modulo the count: the same in every JVM
		assertThat(QueueTemplate.partitionOfKey("customer-7", 4)).isZero();
		assertThat(QueueTemplate.partitionOfKey("k3", 3)).isEqualTo(2);
	}

}
