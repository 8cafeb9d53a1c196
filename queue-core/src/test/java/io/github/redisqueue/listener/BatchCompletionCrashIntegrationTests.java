package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.core.Batch;
import io.github.redisqueue.core.BatchState;
import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.support.BatchCompletion;
import io.github.redisqueue.test.WorkerJvm;
import io.github.redisqueue.test.batch.AbstractBatchWorkerIntegrationTests;
import io.github.redisqueue.test.batch.Piece;
import io.github.redisqueue.test.batch.RunLog;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker JVM killed with SIGKILL while it runs the last sub-job of a batch: once the lease runs
 * out another worker JVM takes the sub-job back and completes it, the batch completes, exactly
 * one completion job is enqueued, and the producer's completion future learns it.
 */
class BatchCompletionCrashIntegrationTests extends AbstractBatchWorkerIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(2);

	@Test
	void workerKilledRunningTheLastSubJobLeavesOneCompletionJobOnceAnotherWorkerCompletesIt() throws Exception {
		QueueAdmin admin = new QueueAdmin(this.queues);
		// cap 1: the sub-jobs run one after the other in the order they were added, the hanging one last
		Batch batch = this.queues.batch(QUEUE).maxConcurrency(1).maxAttempts(5).onComplete(DONE).open();
		List<String> ids = batch.addAll(List.of(new Piece("b", 0, 20, false), new Piece("b", 1, 20, false),
				new Piece("b", 2, 20, false), new Piece("b", 3, 20, true)));
		batch.seal();
		String last = ids.get(3);
		CompletableFuture<BatchStatus> completion = batch.completion();

		WorkerJvm doomed = startWorkers(2, LEASE, true, "w1").get(0);
		await("the last sub-job started").atMost(Duration.ofSeconds(30))
			.until(() -> RunLog.runs(this.redis).stream().anyMatch((run) -> run.jobId().equals(last)));
		BatchStatus beforeKill = batch.status();
		assertThat(beforeKill.state()).isEqualTo(BatchState.SEALED);
		assertThat(beforeKill.completed()).isEqualTo(3);
		assertThat(beforeKill.active()).isEqualTo(1);
		assertThat(admin.counts(QUEUE).inFlight()).isEqualTo(1);
		assertThat(admin.counts(DONE).total("enqueued")).isZero();

		assertThat(doomed.kill()).as("exit code of a SIGKILLed JVM").isEqualTo(137);
		assertThat(completion).isNotDone();
		startWorkers(2, LEASE, false, "w2");

		BatchStatus finished = completion.get(30, TimeUnit.SECONDS);
		assertThat(finished.state()).isEqualTo(BatchState.COMPLETED);
		assertThat(finished.total()).isEqualTo(4);
		assertThat(finished.completed()).isEqualTo(4);
		assertThat(finished.dead()).isZero();
		List<RunLog.Run> lastRuns = RunLog.runs(this.redis).stream().filter((run) -> run.jobId().equals(last)).toList();
		assertThat(lastRuns).as("runs of the last sub-job").hasSize(2);
		assertThat(lastRuns.get(0).worker()).isEqualTo("w1");
		assertThat(lastRuns.get(0).ended()).isFalse();
		assertThat(lastRuns.get(1).worker()).isEqualTo("w2");
		assertThat(lastRuns.get(1).ended()).isTrue();

		assertThat(awaitCompletionJobs(1)).containsExactly(new BatchCompletion(QUEUE, batch.id(), false, 4, 4, 0, 0));
		assertThat(this.queues.forwardBatchCompletions(QUEUE)).as("completion jobs still to hand off").isZero();
	}

}
