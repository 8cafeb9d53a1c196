package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The reaper takes back the jobs of a worker whose heartbeat ran out long before their leases
 * would, and leaves alone live workers, workers that left cleanly and consumers that never
 * registered.
 */
class SilentWorkerIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LONG_LEASE = Duration.ofMinutes(10);

	@Test
	void jobsOfAWorkerWhoseHeartbeatRanOutGoBackBeforeTheirLeases() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("mail", List.of(1, 2, 3, 4), JobOptions.defaults());
		queues.enqueue("sms", 5);
		// long enough for the reserves and the first pass below on a loaded machine
		admin.heartbeat(new WorkerInfo("host-a:1", "host-a", List.of("mail", "sms"), 2, null, null),
				Duration.ofSeconds(5));
		admin.heartbeat(new WorkerInfo("host-b:2", "host-b", List.of("mail"), 1, null, null), Duration.ofMinutes(5));
		ReservedJob deadListener = queues.reserveBatch("mail", 1, LONG_LEASE, "host-a:1#mailer").jobs().get(0);
		ReservedJob deadPull = queues.reserveBatch("sms", 1, LONG_LEASE, "host-a:1").jobs().get(0);
		ReservedJob alive = queues.reserveBatch("mail", 1, LONG_LEASE, "host-b:2#mailer").jobs().get(0);
		ReservedJob unregistered = queues.reserveBatch("mail", 1, LONG_LEASE, "host-c:3#mailer").jobs().get(0);
		// a name that only starts like the dead worker's is someone else
		ReservedJob lookalike = queues.reserveBatch("mail", 1, LONG_LEASE, "host-a:10#mailer").jobs().get(0);

		assertThat(admin.reapOnce().abandoned()).isZero();
		// host-a:1 stops heartbeating; host-b:2 goes on
		await().atMost(Duration.ofSeconds(30)).until(() -> admin.silentWorkers().contains("host-a:1"));
		assertThat(admin.silentWorkers()).containsExactly("host-a:1");

		ReapResult pass = admin.reapOnce();
		assertThat(pass.abandoned()).isEqualTo(2);
		assertThat(pass.reclaimed()).isZero();
		assertThat(state("mail", deadListener)).isEqualTo(JobState.READY);
		assertThat(state("sms", deadPull)).isEqualTo(JobState.READY);
		assertThat(admin.job("mail", deadListener.id()).orElseThrow().lastError()).contains("heartbeat");
		assertThat(state("mail", alive)).isEqualTo(JobState.ACTIVE);
		assertThat(state("mail", unregistered)).isEqualTo(JobState.ACTIVE);
		assertThat(state("mail", lookalike)).isEqualTo(JobState.ACTIVE);
		// once another worker holds the job, the late acknowledgement of the dead one is refused
		ReservedJob again = queues.reserveBatch("mail", 1, LONG_LEASE, "host-b:2#mailer").jobs().get(0);
		assertThat(again.id()).isEqualTo(deadListener.id());
		assertThat(queues.complete("mail", deadListener.ref())).isEqualTo(AckResult.STALE_TOKEN);
		assertThat(state("mail", again)).isEqualTo(JobState.ACTIVE);
		// before anyone took it again, the late acknowledgement of the dead worker completes its job
		assertThat(queues.complete("sms", deadPull.ref())).isEqualTo(AckResult.OK);
		assertThat(admin.job("sms", deadPull.id())).isEmpty();

		// handled once: each queue forgot the worker once it had walked its in-flight jobs
		assertThat(admin.reapOnce().abandoned()).isZero();
		assertThat(this.redis.opsForZSet().size("{rq:mail}:live")).isEqualTo(1);
		assertThat(this.redis.opsForZSet().size("{rq:sms}:live")).isZero();
	}

	@Test
	void aWorkerThatLeftCleanlyOrCameBackIsNotSilent() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("mail", List.of(1, 2), JobOptions.defaults());
		admin.heartbeat(new WorkerInfo("left", "h", List.of("mail"), 0, null, null), Duration.ofMinutes(1));
		admin.heartbeat(new WorkerInfo("paused", "h", List.of("mail"), 0, null, null), Duration.ofMillis(200));
		ReservedJob held = queues.reserveBatch("mail", 1, LONG_LEASE, "paused#mailer").jobs().get(0);

		admin.leave(new WorkerInfo("left", "h", List.of("mail"), 0, null, null));
		// 'paused' may already be past its 200 ms on a loaded machine: only 'left' is checked here
		assertThat(admin.workers()).extracting(WorkerInfo::id).doesNotContain("left");
		await().atMost(Duration.ofSeconds(30)).until(() -> admin.silentWorkers().contains("paused"));
		// its heartbeat resumes before any reaper pass: it is alive again
		admin.heartbeat(new WorkerInfo("paused", "h", List.of("mail"), 1, null, null), Duration.ofMinutes(1));

		assertThat(admin.silentWorkers()).isEmpty();
		assertThat(admin.reapOnce().abandoned()).isZero();
		assertThat(state("mail", held)).isEqualTo(JobState.ACTIVE);
	}

	// F09b: a worker id holding '#' would make a silent worker's name the prefix of another's leases
	@Test
	void workerIdsWithAHashAreRefusedOnEveryPathSoASilentWorkerTakesBackItsOwnJobsOnly() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("mail", List.of(1, 2, 3), JobOptions.defaults());
		WorkerInfo hashed = new WorkerInfo("batch#2", "h", List.of("mail"), 1, null, null);
		assertThatIllegalArgumentException().isThrownBy(() -> admin.heartbeat(hashed, Duration.ofMinutes(5)))
			.withMessageContaining("'batch#2'")
			.withMessageContaining("no '#'");
		assertThatIllegalArgumentException().isThrownBy(() -> admin.leave(hashed));
		for (String identity : List.of("", "#mailer", "#2#mailer", " #mailer", "w".repeat(201) + "#mailer")) {
			assertThatIllegalArgumentException().as("'%s'", identity)
				.isThrownBy(() -> queues.reserveBatch("mail", 1, LONG_LEASE, identity));
			assertThatIllegalArgumentException().as("'%s'", identity)
				.isThrownBy(() -> queues.releaseWorker("mail", identity));
		}
		assertThatIllegalArgumentException()
			.isThrownBy(() -> QueueSettings.builder().workerId("batch#2").build());
		assertThat(admin.workers()).isEmpty();
		assertThat(admin.counts("mail").inFlight()).isZero();

		// the same sequence with ids the rule allows: only the silent worker's job comes back
		admin.heartbeat(new WorkerInfo("batch", "h", List.of("mail"), 1, null, null), Duration.ofMillis(300));
		admin.heartbeat(new WorkerInfo("batch-2", "h", List.of("mail"), 1, null, null), Duration.ofMinutes(5));
		ReservedJob silent = queues.reserveBatch("mail", 1, LONG_LEASE, "batch#mailer").jobs().get(0);
		ReservedJob live = queues.reserveBatch("mail", 1, LONG_LEASE, "batch-2#mailer").jobs().get(0);
		await().atMost(Duration.ofSeconds(5)).until(() -> admin.silentWorkers().contains("batch"));

		assertThat(admin.reapOnce().abandoned()).isEqualTo(1);
		assertThat(state("mail", silent)).isEqualTo(JobState.READY);
		assertThat(state("mail", live)).isEqualTo(JobState.ACTIVE);
	}

	private JobState state(String queue, ReservedJob job) {
		return new QueueAdmin(new QueueTemplate(this.connectionFactory)).job(queue, job.id()).orElseThrow().state();
	}

}
