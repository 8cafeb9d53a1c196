package io.github.redisqueue.samples.benchmark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A short run of the benchmark: it completes, writes its JSON, every job of the drain, batch and
 * latency phases is handled exactly once, and every figure is produced with a sane value. Speed is
 * not asserted here.
 */
class BenchmarkSmokeTests {

	@Test
	void shortRunProducesEveryFigureAtEveryPayloadSize(@TempDir Path dir) throws Exception {
		RedisEndpoint redis = TestRedis.shared();
		Path out = dir.resolve("results.json");
		// one warm-up run by default: its figures are dropped, so each figure below holds one run
		BenchmarkConfig config = BenchmarkConfig.parse("--jobs=500", "--runs=1", "--latency-seconds=0.5", "--rate=400",
				"--idle-seconds=0.5", "--payload-sizes=60,1000", "--no-reference", "--redis-url=" + redis.uri(),
				"--out=" + out);
		assertThat(config.warmupRuns()).isEqualTo(1);

		QueueBenchmark.Report report = QueueBenchmark.run(config);
		report.write();

		assertThat(report.duplicates()).isZero();
		assertThat(report.missing()).isZero();
		assertThat(report.sizes()).extracting((size) -> size.payloadBytes).containsExactly(60, 1000);
		for (PayloadSizeFigures size : report.sizes()) {
			assertThat(size.ours()).hasSize(11).allSatisfy((figures) -> {
				assertThat(figures.values()).hasSize(1);
				assertThat(figures.median()).isPositive();
				assertThat(figures.row()).doesNotContain("NaN");
			});
			assertThat(size.thin()).hasSize(8).allSatisfy((figures) -> assertThat(figures.median()).isPositive());
			assertThat(size.ratios()).hasSize(10).allSatisfy((ratio) -> assertThat(ratio.value()).isPositive());
			// one run: the one pair's ratio is the ratio of the medians
			assertThat(size.ratios()).allSatisfy((ratio) -> assertThat(ratio.paired()).singleElement()
				.satisfies((paired) -> assertThat(paired).isCloseTo(ratio.value(), within(1e-9))));
			// one sample per job enqueued: rate x seconds, for each latency figure, ours and the thin loop's
			assertThat(size.latency).allSatisfy((figures) -> assertThat(figures.sampleCounts()).containsExactly(200L));
			assertThat(size.thinLatency).allSatisfy((figures) -> assertThat(figures.sampleCounts()).containsExactly(200L));
			assertThat(size.latency).allSatisfy((figures) -> assertThat((double) figures.toMap().get("jvmAllocatedBytesPerJob")).isPositive());
			assertThat(size.latency[0].median()).isLessThanOrEqualTo(size.latency[1].median());
			assertThat(size.latency[2].median()).isLessThanOrEqualTo(size.latency[3].median());
			Map<String, Object> costs = size.costs();
			assertThat((double) costs.get("commandsPerJobAtRate")).isPositive();
			// the thin loop's job at a low rate: LPUSH, BLMOVE, LREM (the last LREM may still be on its way)
			assertThat((double) costs.get("thinCommandsPerJobAtRate")).isCloseTo(3.0, within(0.05));
			assertThat((double) costs.get("commandsPerDrainedJobCold")).isPositive();
			assertThat((double) costs.get("commandsPerDrainedJobWarm")).isPositive();
			// LMOVE and LREM per job, and each consumer's last LMOVE that finds the list empty
			assertThat((double) costs.get("thinCommandsPerDrainedJob")).isCloseTo(2.0 + 8.0 / 500, within(0.001));
			assertThat((double) costs.get("redisMicrosPerJobEnqueueAndDrain")).isPositive();
			assertThat((double) costs.get("thinRedisMicrosPerJobEnqueueAndDrain")).isPositive();
			assertThat(size.parallel.executedPerJob()).isGreaterThanOrEqualTo(1);
			assertThat(size.thinParallel.executedPerJob()).isCloseTo(1.0, within(0.01));
		}
		// the idle cost was measured once per run, for the container and the thin loop
		assertThat(report.idle()).allSatisfy((figures) -> {
			assertThat(figures.values()).hasSize(1);
			assertThat(figures.median()).isNotNegative();
		});
		assertThat(report.thinIdle()).allSatisfy((figures) -> assertThat(figures.values()).hasSize(1));
		assertThat(report.table()).contains("--- payload about 60 bytes ---", "--- payload about 1000 bytes ---")
			.containsPattern("(?m)^drain cold @QueueListener C=8 +[0-9,.]+ .* jobs/s ")
			.containsPattern("(?m)^drain warm @QueueListener C=8 +[0-9,.]+ .* jobs/s ")
			.containsPattern("(?m)^enqueue, 1 job/call, 8 threads +[0-9,.]+ .* jobs/s ")
			.containsPattern("(?m)^thin: latency p99.9 @400/s +[0-9,.]+ .* ms ")
			.containsPattern("(?m)^  drain warm @QueueListener C=8 +/ thin: LMOVE\\+LREM C=8 +x [0-9]+\\.[0-9]{2} \\(paired runs [0-9]+\\.[0-9]{2}, [0-9]+\\.[0-9]{2}-[0-9]+\\.[0-9]{2}\\)$")
			.containsPattern("(?m)^Redis commands per job at 400/s: [0-9.]+ \\(thin [0-9.]+\\)")
			.containsPattern("(?m)^batch drain / cold @QueueListener drain \\(medians\\): [0-9]+\\.[0-9]%$");
		assertThat(Files.readString(out)).contains("\"deliveredTwice\" : 0")
			.contains("\"payloadBytes\" : 1000")
			.contains("\"commandsPerJobAtRate\"")
			.contains("\"redisMicrosPerJobEnqueueAndDrain\"")
			.contains("\"thinLoopIdle\"")
			.contains("\"samples\" : [ 200 ]")
			.contains("\"ratiosToThinLoop\"")
			.contains("\"pairedRunRatios\"")
			.contains("\"warmupRuns\" : 1");
	}

	@Test
	@SuppressWarnings("unchecked")
	void backlogModeMeasuresEveryBacklogSize(@TempDir Path dir) throws Exception {
		RedisEndpoint redis = TestRedis.shared();
		BenchmarkConfig config = BenchmarkConfig.parse("--backlog", "--backlog-sizes=100,3000", "--backlog-sample=500",
				"--runs=1", "--redis-url=" + redis.uri(), "--out=" + dir.resolve("backlog.json"));

		Map<String, Object> report = BacklogBenchmark.measure(config);

		List<Map<String, Object>> phases = (List<Map<String, Object>>) report.get("phases");
		assertThat(phases).extracting((phase) -> phase.get("phase"))
			.containsExactly("reserve+complete p50 with 100 waiting", "reserve+complete p99 with 100 waiting",
					"drain @QueueListener C=8 with 100 waiting", "reserve+complete p50 with 3,000 waiting",
					"reserve+complete p99 with 3,000 waiting", "drain @QueueListener C=8 with 3,000 waiting");
		assertThat(phases).allSatisfy((phase) -> assertThat((double) phase.get("median")).isPositive());
	}

	@Test
	@SuppressWarnings("unchecked")
	void scriptCostModeMeasuresEachScriptAtEveryNumberOfJobsPerCall(@TempDir Path dir) throws Exception {
		RedisEndpoint redis = TestRedis.shared();
		BenchmarkConfig config = BenchmarkConfig.parse("--script-costs", "--jobs=64", "--jobs-per-call=1,16",
				"--runs=1", "--redis-url=" + redis.uri(), "--out=" + dir.resolve("script-costs.json"));

		Map<String, Object> report = ScriptCostBenchmark.measure(config);

		List<Map<String, Object>> rows = (List<Map<String, Object>>) report.get("rows");
		assertThat(rows).extracting((row) -> row.get("jobsPerCall")).containsExactly(1, 16);
		for (String phase : List.of("reserve", "start", "completion")) {
			Map<String, Object> single = (Map<String, Object>) rows.get(0).get(phase);
			Map<String, Object> sixteen = (Map<String, Object>) rows.get(1).get(phase);
			assertThat((double) single.get("medianRedisMicrosPerJob")).isPositive();
			assertThat((double) sixteen.get("medianRedisMicrosPerJob")).isPositive();
			// a call's own commands are shared by the jobs it carries
			assertThat((double) sixteen.get("commandsPerJob")).isLessThan((double) single.get("commandsPerJob"));
		}
	}

	@Test
	@SuppressWarnings("unchecked")
	void memoryModeMeasuresEveryPayloadSize(@TempDir Path dir) throws Exception {
		// a server of its own: used_memory of a server that other tests' clients still use (a
		// container stopping, retained jobs purged) moves for reasons of theirs
		Map<String, Object> report;
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			BenchmarkConfig config = BenchmarkConfig.parse("--memory", "--memory-jobs=500", "--payload-bytes=50,1000",
					"--redis-url=" + server.endpoint().uri(), "--out=" + dir.resolve("memory.json"));
			report = MemoryBenchmark.measure(config);
		}

		List<Map<String, Object>> sizes = (List<Map<String, Object>>) report.get("sizes");
		assertThat(sizes).extracting((size) -> size.get("payloadBytesStored")).containsExactly(50, 1000);
		// a queued job costs its payload and more; the reference list costs about its payload
		assertThat(sizes).allSatisfy((size) -> {
			assertThat((long) size.get("queueBytesPerJob")).isGreaterThan(((Integer) size.get("payloadBytesStored")));
			assertThat((long) size.get("listBytesPerJob")).isGreaterThanOrEqualTo(((Integer) size.get("payloadBytesStored")));
		});
	}

}
