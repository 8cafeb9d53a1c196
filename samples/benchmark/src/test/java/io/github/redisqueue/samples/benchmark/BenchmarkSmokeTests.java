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

/**
 * A short run of the benchmark: it completes, writes its JSON, and every job of the drain, batch
 * and latency phases is handled exactly once. Speed is not asserted here.
 */
class BenchmarkSmokeTests {

	@Test
	void shortRunCompletesAndAcknowledgesEveryJobOnce(@TempDir Path dir) throws Exception {
		RedisEndpoint redis = TestRedis.shared();
		Path out = dir.resolve("results.json");
		BenchmarkConfig config = BenchmarkConfig.parse("--jobs=2000", "--runs=1", "--latency-seconds=1", "--rate=500",
				"--no-reference", "--redis-url=" + redis.uri(), "--out=" + out);

		QueueBenchmark.Report report = QueueBenchmark.run(config);
		report.write();

		assertThat(report.duplicates()).isZero();
		assertThat(report.missing()).isZero();
		assertThat(report.figures()).hasSize(9).allSatisfy((figures) -> assertThat(figures.row()).doesNotContain("NaN"));
		assertThat(report.table()).containsPattern("(?m)^batch cap 8, @QueueListener C=8 +[0-9,.]+ .* jobs/s ")
			.containsPattern("(?m)^batch drain / plain @QueueListener drain \\(medians\\): [0-9]+\\.[0-9]%$");
		assertThat(report.batchToDrain()).isPositive();
		// the thin loop ran every phase, and each figure has its ratio
		assertThat(report.thin()).hasSize(5).allSatisfy((figures) -> assertThat(figures.median()).isPositive());
		assertThat(report.ratios()).hasSize(6).allSatisfy((ratio) -> assertThat(ratio.value()).isPositive());
		assertThat(report.table()).containsPattern("(?m)^thin loop: LMOVE\\+LREM C=8 +[0-9,.]+ .* jobs/s ")
			.containsPattern("(?m)^  drain @QueueListener C=8 +/ thin loop: LMOVE\\+LREM C=8 +x [0-9]+\\.[0-9]{2}$");
		assertThat(Files.readString(out)).contains("\"deliveredTwice\" : 0")
			.contains("drain @QueueListener C=8")
			.contains("batch cap 8, @QueueListener C=8")
			.contains("\"batchToListenerDrain\"")
			.contains("\"ratiosToThinLoop\"");
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
