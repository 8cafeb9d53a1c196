package io.github.redisqueue.listener;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueCounts;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * At-least-once delivery across processes: a worker JVM killed with SIGKILL in the middle of its
 * handlers loses no job; a worker JVM stopped with SIGTERM finishes what runs, delivers nothing
 * twice, and gives back at once the leases it cannot finish.
 */
class WorkerProcessIntegrationTests extends AbstractRedisIntegrationTests {

	private final List<Process> processes = new ArrayList<>();

	@AfterEach
	void killLeftovers() {
		this.processes.forEach(Process::destroyForcibly);
	}

	@Test
	void workerKilledWithSigkillMidHandlerLosesNoJob() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = queues.enqueueAll("crash", IntStream.range(0, 20).boxed().toList(),
				JobOptions.builder().maxAttempts(5).build()).stream().map((result) -> result.id()).toList();
		Process worker = startWorker("crash", "work");
		await().atMost(Duration.ofSeconds(60)).until(() -> this.redis.opsForSet().size("crash:started") >= 3);

		worker.destroyForcibly(); // SIGKILL
		assertThat(worker.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(worker.exitValue()).isEqualTo(137);
		Set<String> finishedBeforeKill = this.redis.opsForSet().members("crash:finished");
		assertThat(admin.counts("crash").inFlight()).as("leases the dead worker still held").isPositive();

		Map<String, Integer> handledHere = new ConcurrentHashMap<>();
		QueueListenerContainer survivor = new QueueListenerContainer("survivor", "crash", queues,
				(job, ack) -> handledHere.merge(job.id(), 1, Integer::sum),
				ContainerOptions.builder().concurrency(4).pollInterval(Duration.ofMillis(200)).build(), null, null);
		survivor.start();
		try {
			// the survivor, idle once the ready jobs are done, reserves every half lease (15 s); a lease
			// of the dead worker that ran out in such a quiet gap is held as long again as the gap
			// (docs/redis.md: "While Redis is away"), so its job may come back a half lease later still
			await().atMost(Duration.ofSeconds(60)).until(() -> admin.counts("crash").total("completed") == 20);
		}
		finally {
			survivor.stop();
		}
		QueueCounts counts = admin.counts("crash");
		assertThat(counts.pending()).isZero();
		assertThat(counts.dead()).isZero();
		Set<String> finishedSomewhere = new java.util.HashSet<>(finishedBeforeKill);
		finishedSomewhere.addAll(handledHere.keySet());
		assertThat(finishedSomewhere).containsExactlyInAnyOrderElementsOf(ids);
	}

	@Test
	void workerStoppedWithSigtermFinishesRunningJobsAndDeliversNothingTwice() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("term", IntStream.range(0, 50).boxed().toList(), JobOptions.defaults());
		Process worker = startWorker("term", "work");
		await().atMost(Duration.ofSeconds(60)).until(() -> this.redis.opsForSet().size("term:started") >= 2);

		worker.destroy(); // SIGTERM
		assertThat(worker.waitFor(30, TimeUnit.SECONDS)).isTrue();

		Set<String> started = this.redis.opsForSet().members("term:started");
		Set<String> finished = this.redis.opsForSet().members("term:finished");
		assertThat(finished).isEqualTo(started);
		QueueCounts counts = admin.counts("term");
		assertThat(counts.inFlight()).isZero();
		assertThat(counts.total("completed")).isEqualTo(finished.size());
		assertThat(counts.ready()).isEqualTo(50 - finished.size());
	}

	@Test
	void workerStoppedWithSigtermGivesBackTheLeasesItCannotFinishAtOnce() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("hang", IntStream.range(0, 5).boxed().toList(), JobOptions.defaults());
		Process worker = startWorker("hang", "hang");
		await().atMost(Duration.ofSeconds(60)).until(() -> this.redis.opsForSet().size("hang:started") == 2);

		worker.destroy(); // SIGTERM
		assertThat(worker.waitFor(30, TimeUnit.SECONDS)).isTrue();

		QueueCounts counts = admin.counts("hang");
		assertThat(counts.inFlight()).isZero();
		assertThat(counts.ready()).isEqualTo(5);
		assertThat(queues.reserve("hang", 5, Duration.ofSeconds(30))).allSatisfy((job) -> assertThat(job.attempt()).isEqualTo(1));
	}

	private Process startWorker(String queue, String mode) throws Exception {
		String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Path log = Files.createTempFile("worker-" + queue, ".log");
		ProcessBuilder builder = new ProcessBuilder(java, "-D" + TestRedis.CLUSTER_NODES + "="
				+ String.join(",", endpoint().clusterNodes()), "-cp", classpath, WorkerProcessMain.class.getName(),
				endpoint().host(), String.valueOf(endpoint().port()), queue, mode)
			.redirectErrorStream(true)
			.redirectOutput(log.toFile());
		Process process = builder.start();
		this.processes.add(process);
		await().atMost(Duration.ofSeconds(60))
			.until(() -> Files.readString(log).contains("WORKER STARTED") || !process.isAlive());
		assertThat(process.isAlive()).as("worker process started; log: %s", log).isTrue();
		return process;
	}

}
