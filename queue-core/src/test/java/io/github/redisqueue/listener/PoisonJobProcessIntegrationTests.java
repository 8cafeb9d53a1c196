package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.core.DeadJob;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobRecords;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.WorkerJvm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A job that kills its worker, with worker JVMs of their own: a worker with a stable id, one
 * thread and a prefetch of one runs an ordinary job, then from its prefetch buffer a poison job
 * that halts the JVM when it starts. Restarted each time it dies (with an ordinary job ahead of
 * the poison job again), the worker takes the job back as lost, not as a job that never started,
 * and the job ends dead after max attempts worker deaths. A job that was only reserved ahead when
 * its worker died, never started, is counted apart and runs again.
 */
class PoisonJobProcessIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration JVM_START = Duration.ofSeconds(120);

	// far more deaths than the limit (3 x max attempts) of losses of jobs that never started
	private static final int MOST_DEATHS = 12;

	private final List<WorkerJvm> workers = new ArrayList<>();

	@AfterEach
	void killWorkers() {
		this.workers.forEach(WorkerJvm::close);
	}

	@Test
	void aPoisonJobStartedFromThePrefetchBufferEndsDeadAfterMaxAttemptsWorkerDeaths() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		JobRecords records = new JobRecords(this.redis, queues, "poison");
		JobOptions three = JobOptions.builder().maxAttempts(3).build();
		String first = queues.enqueue("poison", "work-0", three).id();
		String poison = queues.enqueue("poison", PoisonWorkerMain.POISON, three).id();

		int deaths = 0;
		while (deaths <= MOST_DEATHS) {
			if (deaths > 0) {
				// an ordinary job ahead of the poison job again: the restarted worker's first reserve
				// starts it and reserves the poison job ahead, which starts from the prefetch buffer
				queues.enqueue("poison", "work-" + deaths, three.toBuilder().priority(1).build());
			}
			WorkerJvm worker = start("poison");
			// the poison job halts this worker, or it was dead-lettered when the worker took it back
			await().atMost(JVM_START).until(() -> !worker.isAlive() || admin.counts("poison").dead() == 1);
			if (worker.isAlive()) {
				break;
			}
			assertThat(worker.exitValue()).as("exit status of %s; its output:%n%s", worker, worker.log())
				.isEqualTo(PoisonWorkerMain.HALTED);
			deaths++;
		}

		assertThat(deaths).as("worker deaths before the poison job was dead-lettered; its record: %s",
				records.fields(poison)).isEqualTo(3);
		DeadJob dead = admin.deadLetters("poison", 0, 10).get(0);
		assertThat(dead.id()).isEqualTo(poison);
		assertThat(dead.error()).contains("held 3 times without an outcome (max attempts 3)");
		Map<String, String> fields = records.fields(poison);
		assertThat(fields).containsEntry("state", "dead").containsEntry("lost", "3");
		assertThat(fields.getOrDefault("lostAhead", "0")).isEqualTo("0");
		// every ordinary job ran once, the first one before the poison job's first run
		await().atMost(JVM_START).until(() -> admin.counts("poison").total("completed") == 4);
		assertThat(runs("poison")).containsExactly("work-0", "poison", "work-1", "poison", "work-2", "poison",
				"work-3");
		assertThat(records.fields(first)).containsEntry("state", "completed").containsEntry("attempts", "1");
	}

	@Test
	void aJobOnlyReservedAheadWhenItsWorkerDiedIsNotCountedAgainstMaxAttempts() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		JobRecords records = new JobRecords(this.redis, queues, "behind");
		JobOptions once = JobOptions.builder().maxAttempts(1).build();
		String slow = queues.enqueue("behind", PoisonWorkerMain.HOLD, once).id();
		String waiting = queues.enqueue("behind", "work", once).id();
		WorkerJvm worker = start("behind");
		// the slow job runs on the only thread; the other is reserved ahead, waiting for it
		await().atMost(JVM_START)
			.until(() -> runs("behind").contains(PoisonWorkerMain.HOLD)
					&& "active".equals(records.fields(waiting).get("state")));
		// reserved ahead: its mark holds the token of its reservation until it starts
		assertThat(records.mark(waiting)).isEqualTo("A" + records.fields(waiting).get("token"));

		worker.kill(); // SIGKILL, by its PID
		start("behind");

		// the running job's loss counts against max attempts 1; the waiting job's does not
		await().atMost(JVM_START).until(() -> admin.counts("behind").total("completed") == 1);
		assertThat(admin.counts("behind").dead()).isEqualTo(1);
		DeadJob dead = admin.deadLetters("behind", 0, 10).get(0);
		assertThat(dead.id()).isEqualTo(slow);
		assertThat(dead.error()).contains("held 1 times without an outcome (max attempts 1)");
		Map<String, String> fields = records.fields(waiting);
		assertThat(fields).containsEntry("state", "completed").containsEntry("lostAhead", "1");
		assertThat(fields.getOrDefault("lost", "0")).isEqualTo("0");
		assertThat(runs("behind")).containsExactly(PoisonWorkerMain.HOLD, "work");
	}

	private WorkerJvm start(String queue) {
		WorkerJvm worker = PoisonWorkerMain.launch(endpoint(), queue, "stable-" + queue);
		this.workers.add(worker);
		return worker;
	}

	private List<String> runs(String queue) {
		List<String> runs = this.redis.opsForList().range(queue + ":runs", 0, -1);
		return (runs != null) ? runs : Collections.emptyList();
	}

}
