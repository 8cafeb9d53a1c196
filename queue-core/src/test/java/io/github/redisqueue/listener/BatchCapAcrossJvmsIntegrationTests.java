package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.redisqueue.core.Batch;
import io.github.redisqueue.core.BatchState;
import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.support.BatchCompletion;
import io.github.redisqueue.test.batch.AbstractBatchWorkerIntegrationTests;
import io.github.redisqueue.test.batch.Piece;
import io.github.redisqueue.test.batch.RunLog;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cap of a batch holds across processes: three batches of one queue, capped at 1, 3 and 5,
 * drained together by two worker JVMs of eight threads each, run exactly as many sub-jobs at once
 * as their caps (never more, and the cap is reached), and each ends with one completion job.
 */
class BatchCapAcrossJvmsIntegrationTests extends AbstractBatchWorkerIntegrationTests {

	@Test
	void batchesDrainedBySixteenThreadsInTwoJvmsRunAsManySubJobsAtOnceAsTheirCaps() throws Exception {
		// 16 threads, more than 1 + 3 + 5: every batch can be at its cap while the others are
		startWorkers(8, Duration.ofSeconds(30), false, "w1", "w2");
		long seed = System.nanoTime();
		Random random = new Random(seed);
		Map<Integer, Integer> sizeByCap = Map.of(1, 40, 3, 50, 5, 60);
		Map<Integer, Batch> batches = new LinkedHashMap<>();
		for (int cap : List.of(1, 3, 5)) {
			List<Piece> pieces = new ArrayList<>();
			for (int i = 0; i < sizeByCap.get(cap); i++) {
				pieces.add(new Piece("cap" + cap, i, 80 + random.nextInt(81), false));
			}
			batches.put(cap, this.queues.batch(QUEUE).maxConcurrency(cap).onComplete(DONE).addAll(pieces).submit());
		}
		Map<Integer, CompletableFuture<BatchStatus>> completions = new LinkedHashMap<>();
		batches.forEach((cap, batch) -> completions.put(cap, batch.completion()));
		CompletableFuture.allOf(completions.values().toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

		Map<String, List<RunLog.Run>> runsByBatch = RunLog.runs(this.redis)
			.stream()
			.collect(Collectors.groupingBy(RunLog.Run::batch));
		for (Map.Entry<Integer, CompletableFuture<BatchStatus>> entry : completions.entrySet()) {
			int cap = entry.getKey();
			BatchStatus status = entry.getValue().join();
			assertThat(status.state()).isEqualTo(BatchState.COMPLETED);
			assertThat(status.total()).isEqualTo((long) sizeByCap.get(cap));
			assertThat(status.completed()).isEqualTo(status.total());
			List<RunLog.Run> runs = runsByBatch.getOrDefault("cap" + cap, List.of());
			assertThat(runs).as("runs of the batch capped at %d", cap)
				.hasSize(sizeByCap.get(cap))
				.allSatisfy((run) -> assertThat(run.ended()).isTrue());
			assertThat(runs.stream().map(RunLog.Run::jobId).distinct()).hasSize(sizeByCap.get(cap));
			List<RunLog.Run> busiest = RunLog.busiest(runs);
			assertThat(busiest.size())
				.as("most sub-jobs of the batch capped at %d running at once (seed %d): %s", cap, seed, busiest)
				.isEqualTo(cap);
		}
		assertThat(runsByBatch.values().stream().flatMap(List::stream).map(RunLog.Run::worker).distinct())
			.as("both worker JVMs ran sub-jobs")
			.containsExactlyInAnyOrder("w1", "w2");

		assertThat(awaitCompletionJobs(3)).allSatisfy((completion) -> assertThat(completion.succeeded()).isTrue())
			.extracting(BatchCompletion::batchId)
			.containsExactlyInAnyOrderElementsOf(batches.values().stream().map(Batch::id).toList());
	}

}
