package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.RedisClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The worker registry at the edges: its keys never meet a queue's, whatever the names (F14);
 * silent-worker takeback matches worker identities exactly (F09) and re-checks liveness at the
 * moment it takes jobs back (F10). Liveness is per queue: a heartbeat records the worker in each
 * queue of {@link WorkerInfo#queues()}.
 */
class WorkerRegistryEdgeIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LONG_LEASE = Duration.ofMinutes(10);

	private static WorkerInfo worker(String id, String... queues) {
		return new WorkerInfo(id, "host", List.of(queues), 0, null, null);
	}

	/** Worker pod-7 holds the one job of queue f10, then its 300 ms heartbeat runs out (Redis clock). */
	private ReservedJob heldByWorkerGoneSilent(QueueTemplate queues) {
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("f10", "x");
		admin.heartbeat(worker("pod-7", "f10"), Duration.ofMillis(300));
		Instant beat = RedisClock.now(this.redis);
		ReservedJob held = queues.reserveBatch("f10", 1, LONG_LEASE, "pod-7#mailer").jobs().get(0);
		RedisClock.awaitPast(this.redis, beat.plusMillis(300));
		return held;
	}

	// F14
	@Test
	void workerNamedLikeAJobOfAQueueNamedWorkersNeverTouchesTheJob() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("workers", "payload-1").id();
		assertThat(id).isEqualTo("1");
		JobRecords records = new JobRecords(this.redis, queues, "workers");
		Map<String, String> fields = records.fields(id);
		assertThat(fields).containsEntry("state", "ready");

		admin.heartbeat(worker("job:1", "workers"), Duration.ofSeconds(30));
		assertThat(records.fields(id)).isEqualTo(fields);
		assertThat(this.redis.getExpire(queues.keys("workers").key("ready:plain"))).as("TTL of the ready list").isEqualTo(-1);
		admin.leave(worker("job:1", "workers"));

		assertThat(records.fields(id)).isEqualTo(fields);
		assertThat(queues.reserve("workers", 1, LONG_LEASE)).singleElement().satisfies((job) -> {
			assertThat(job.id()).isEqualTo(id);
			assertThat(job.payloadAsString()).isEqualTo("\"payload-1\"");
		});
	}

	// F14
	@Test
	void workersNamedLikeTheKeysOfAQueueNamedWorkersLeaveTheQueueWorking() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("workers", "first");
		for (String id : List.of("stats", "seq", "ready", "inflight", "job:1", "paused")) {
			admin.heartbeat(worker(id, "workers"), Duration.ofSeconds(30));
		}
		assertThat(admin.workers()).extracting(WorkerInfo::id).hasSize(6);

		QueueCounts counts = admin.counts("workers");
		assertThat(counts.ready()).isEqualTo(1);
		assertThat(counts.paused()).isFalse();
		assertThat(counts.total("enqueued")).isEqualTo(1);
		assertThat(queues.enqueue("workers", "second").id()).isEqualTo("2");
		for (String id : List.of("stats", "seq", "ready", "inflight", "job:1", "paused")) {
			admin.leave(worker(id, "workers"));
		}

		assertThat(admin.workers()).isEmpty();
		assertThat(admin.counts("workers").total("enqueued")).isEqualTo(2);
		assertThat(queues.reserve("workers", 10, LONG_LEASE)).extracting(ReservedJob::payloadAsString)
			.containsExactly("\"first\"", "\"second\"");
	}

	// F09
	@Test
	void workerIdWithAHashIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueSettings.builder().workerId("batch#2").build())
			.withMessageContaining("#");
		assertThatIllegalArgumentException().isThrownBy(() -> QueueSettings.builder().workerId("batch#").build())
			.withMessageContaining("#");
		assertThat(QueueSettings.builder().workerId("batch-2").build().workerId()).isEqualTo("batch-2");
	}

	// F09
	@Test
	void silentWorkerLosesOnlyItsOwnJobsNotThoseOfALiveWorkerWhoseIdStartsLikeIt() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("f09", List.of(1, 2, 3, 4), JobOptions.defaults());
		admin.heartbeat(worker("batch2", "f09"), Duration.ofMinutes(5));
		admin.heartbeat(worker("batch", "f09"), Duration.ofMillis(300));
		Instant beat = RedisClock.now(this.redis);
		ReservedJob silentListener = queues.reserveBatch("f09", 1, LONG_LEASE, "batch#mailer").jobs().get(0);
		ReservedJob silentPull = queues.reserveBatch("f09", 1, LONG_LEASE, "batch").jobs().get(0);
		ReservedJob liveListener = queues.reserveBatch("f09", 1, LONG_LEASE, "batch2#mailer").jobs().get(0);
		ReservedJob livePull = queues.reserveBatch("f09", 1, LONG_LEASE, "batch2").jobs().get(0);
		// batch stops heartbeating; batch2 goes on
		RedisClock.awaitPast(this.redis, beat.plusMillis(300));

		for (int pass = 0; pass < 10 && state(queues, "f09", silentListener, silentPull).contains(JobState.ACTIVE); pass++) {
			admin.reapOnce();
		}

		assertThat(state(queues, "f09", silentListener, silentPull)).containsOnly(JobState.READY);
		assertThat(state(queues, "f09", liveListener, livePull)).containsOnly(JobState.ACTIVE);
		assertThat(queues.complete("f09", liveListener.ref())).isEqualTo(AckResult.OK);
		assertThat(queues.complete("f09", livePull.ref())).isEqualTo(AckResult.OK);
	}

	// F10: silent, then a heartbeat, then the pass
	@Test
	void workerThatHeartbeatsAgainBeforeTheReaperPassKeepsItsJobs() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		ReservedJob held = heldByWorkerGoneSilent(queues);

		// the worker was only slow (GC pause, restart): it heartbeats again before any reaper pass
		admin.heartbeat(worker("pod-7", "f10"), Duration.ofMinutes(1));
		ReapResult pass = admin.reapOnce();

		assertThat(pass.abandoned()).isZero();
		assertThat(admin.job("f10", held.id()).orElseThrow().state()).isEqualTo(JobState.ACTIVE);
		assertThat(queues.complete("f10", held.ref())).isEqualTo(AckResult.OK);
	}

	// F10: the heartbeat comes during the pass, after the pass started but before it looked at the
	// queue; the pass must re-check liveness where it takes jobs back
	@Test
	void workerThatHeartbeatsAgainDuringTheReaperPassKeepsItsJobs() {
		QueueTemplate other = new QueueTemplate(this.connectionFactory);
		QueueAdmin otherAdmin = new QueueAdmin(other);
		AtomicBoolean armed = new AtomicBoolean();
		AtomicInteger fired = new AtomicInteger();
		QueueAdmin reaper = new QueueAdmin(new QueueTemplate(this.connectionFactory)) {
			@Override
			public Set<String> queues() {
				// another process: pod-7 heartbeats while this pass is under way
				if (armed.getAndSet(false)) {
					otherAdmin.heartbeat(worker("pod-7", "f10"), Duration.ofMinutes(1));
					fired.incrementAndGet();
				}
				return super.queues();
			}
		};
		other.enqueue("f10", "x");
		otherAdmin.heartbeat(worker("pod-7", "f10"), Duration.ofMillis(300));
		Instant beat = RedisClock.now(this.redis);
		ReservedJob held = other.reserveBatch("f10", 1, LONG_LEASE, "pod-7#mailer").jobs().get(0);
		RedisClock.awaitPast(this.redis, beat.plusMillis(300));

		armed.set(true);
		ReapResult pass = reaper.reapOnce();

		assertThat(fired).as("the pass lists the queues after it started (this test's hook)").hasValue(1);
		assertThat(pass.abandoned()).isZero();
		assertThat(otherAdmin.job("f10", held.id()).orElseThrow().state()).isEqualTo(JobState.ACTIVE);
		assertThat(other.complete("f10", held.ref())).isEqualTo(AckResult.OK);
	}

	// F10: and a worker that stays silent does lose its jobs in the next pass
	@Test
	void workerThatStaysSilentLosesItsJobs() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		ReservedJob held = heldByWorkerGoneSilent(queues);

		ReapResult pass = admin.reapOnce();

		assertThat(pass.abandoned()).isEqualTo(1);
		assertThat(admin.job("f10", held.id()).orElseThrow().state()).isEqualTo(JobState.READY);
		assertThat(admin.job("f10", held.id()).orElseThrow().lastError()).contains("heartbeat");
	}

	private static List<JobState> state(QueueTemplate queues, String queue, ReservedJob... jobs) {
		QueueAdmin admin = new QueueAdmin(queues);
		return java.util.Arrays.stream(jobs).map((job) -> admin.job(queue, job.id()).orElseThrow().state()).toList();
	}

}
