package io.github.redisqueue.samples.benchmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.github.redisqueue.core.QueueSettings;

/**
 * What to run, from command-line arguments of the form {@code --name=value}.
 *
 * @param jobs jobs per phase and run
 * @param concurrency listener concurrency of the drain, batch and latency phases
 * @param batchCap the batch phase's cap: at most this many of its sub-jobs admitted at once
 * @param prefetch the listener containers' prefetch, or -1 for the library's default (unset: it
 * adapts to the handlers' speed)
 * @param rate jobs per second of the latency phase
 * @param latencyDuration how long the latency phase enqueues
 * @param runs runs per phase; figures are the median with min and max
 * @param warmupRuns runs of every phase of the main benchmark made first and not counted, so that the first counted run
 * of redis-queue does not meet a JVM whose code is not yet compiled while the thin loop, measured
 * after it, does
 * @param redisUrl a Redis to use instead of starting one ({@code redis://host:port})
 * @param out where the JSON results go
 * @param reference whether to run redis-benchmark for the machine's reference numbers
 * @param cluster the cluster benchmark instead: the drain on a local Redis Cluster
 * @param masters masters of the cluster benchmark's cluster
 * @param replicas replicas per master of the cluster benchmark's cluster
 * @param partitions the partition counts of the cluster benchmark: its drains run once for each,
 * with the queue spread over that many partitions
 * @param memory the memory benchmark instead: Redis memory per queued job
 * @param memoryJobs jobs queued per payload size by the memory benchmark
 * @param payloadBytes the payload sizes of the memory benchmark, in bytes as stored
 * @param paddedTo when {@code --payload-bytes} is given, the first of its sizes: the payload size of
 * the backlog and cluster modes, and of the main benchmark when {@code --payload-sizes} is not given
 * (0 leaves their payload as it is, about 60 bytes)
 * @param backlog the backlog benchmark instead: the cost of a job with many waiting
 * @param backlogSizes the jobs waiting in the backlog benchmark's cases
 * @param backlogSample the jobs the backlog benchmark drains in each case
 * @param payloadSizes the payload sizes the main benchmark runs every phase at, in bytes of JSON
 * ({@code --payload-sizes}; by default the size {@code --payload-bytes} gives, else 60, the unpadded
 * payload)
 * @param producers producer threads of the parallel enqueue phase
 * @param idleDuration how long the idle cost is measured
 * @param scriptCosts the script-cost benchmark instead: Redis time of the reserve, start and
 * completion scripts per job, at each number of jobs per call of {@code jobsPerCall}
 * @param jobsPerCall the jobs per call of the script-cost benchmark
 */
record BenchmarkConfig(int jobs, int concurrency, int batchCap, int prefetch, int rate, Duration latencyDuration, int runs,
		int warmupRuns, String redisUrl, Path out, boolean reference, boolean cluster, int masters, int replicas,
		List<Integer> partitions, boolean memory, int memoryJobs, List<Integer> payloadBytes, int paddedTo,
		boolean backlog, List<Integer> backlogSizes, int backlogSample, List<Integer> payloadSizes, int producers,
		Duration idleDuration, boolean scriptCosts, List<Integer> jobsPerCall) {

	static BenchmarkConfig parse(String... args) {
		int jobs = 100_000;
		int concurrency = 8;
		int batchCap = 8;
		int prefetch = -1;
		int rate = 1_000;
		Duration latency = Duration.ofSeconds(10);
		int runs = 3;
		int warmupRuns = 1;
		String url = null;
		Path out = Path.of("benchmark-results.json");
		boolean reference = true;
		boolean cluster = false;
		int masters = 3;
		int replicas = 0;
		List<Integer> partitions = List.of(1);
		boolean memory = false;
		int memoryJobs = 20_000;
		List<Integer> payloadBytes = List.of(50, 100, 1_000, 10_000);
		int paddedTo = 0;
		boolean backlog = false;
		List<Integer> backlogSizes = List.of(1_000, 1_000_000);
		int backlogSample = 20_000;
		List<Integer> payloadSizes = null;
		int producers = 8;
		Duration idle = Duration.ofSeconds(10);
		boolean scriptCosts = false;
		List<Integer> jobsPerCall = List.of(1, 8, 64);
		for (String arg : args) {
			String[] pair = arg.replaceFirst("^--", "").split("=", 2);
			String value = (pair.length > 1) ? pair[1] : "";
			switch (pair[0]) {
				case "jobs" -> jobs = Integer.parseInt(value);
				case "concurrency" -> concurrency = Integer.parseInt(value);
				case "batch-cap" -> batchCap = Integer.parseInt(value);
				case "prefetch" -> prefetch = Integer.parseInt(value);
				case "rate" -> rate = Integer.parseInt(value);
				case "latency-seconds" -> latency = Duration.ofMillis((long) (Double.parseDouble(value) * 1000));
				case "runs" -> runs = Integer.parseInt(value);
				case "warmup-runs" -> warmupRuns = Integer.parseInt(value);
				case "redis-url" -> url = value;
				case "out" -> out = Path.of(value);
				case "no-reference" -> reference = false;
				case "cluster" -> cluster = true;
				case "cluster-masters" -> masters = Integer.parseInt(value);
				case "cluster-replicas" -> replicas = Integer.parseInt(value);
				case "partitions" -> partitions = Arrays.stream(value.split(","))
					.map((count) -> Integer.valueOf(count.strip()))
					.distinct()
					.toList();
				case "memory" -> memory = true;
				case "memory-jobs" -> memoryJobs = Integer.parseInt(value);
				case "backlog" -> backlog = true;
				case "backlog-sizes" -> backlogSizes = Arrays.stream(value.split(","))
					.map((size) -> Integer.valueOf(size.strip()))
					.toList();
				case "backlog-sample" -> backlogSample = Integer.parseInt(value);
				case "payload-sizes" -> payloadSizes = Arrays.stream(value.split(","))
					.map((size) -> Integer.valueOf(size.strip()))
					.distinct()
					.toList();
				case "producers" -> producers = Integer.parseInt(value);
				case "script-costs" -> scriptCosts = true;
				case "jobs-per-call" -> jobsPerCall = Arrays.stream(value.split(","))
					.map((count) -> Integer.valueOf(count.strip()))
					.distinct()
					.toList();
				case "idle-seconds" -> idle = Duration.ofMillis((long) (Double.parseDouble(value) * 1000));
				case "payload-bytes" -> {
					payloadBytes = Arrays.stream(value.split(",")).map((size) -> Integer.valueOf(size.strip())).toList();
					paddedTo = payloadBytes.get(0);
				}
				default -> throw new IllegalArgumentException("Unknown argument '" + arg + "'; known: --jobs=N "
						+ "--concurrency=C --batch-cap=B --prefetch=P --rate=R --latency-seconds=S --runs=K --warmup-runs=W --redis-url=redis://host:port "
						+ "--out=FILE --no-reference --cluster --cluster-masters=3 --cluster-replicas=0 --partitions=1,2,3 --memory --memory-jobs=N "
						+ "--payload-bytes=50,100,1000,10000 --payload-sizes=60,1000,10000 --producers=8 --idle-seconds=10 --backlog --backlog-sizes=1000,1000000 --backlog-sample=N "
						+ "--script-costs --jobs-per-call=1,8,64");
			}
		}
		if (jobs < 1 || concurrency < 1 || batchCap < 1 || rate < 1 || runs < 1 || masters < 1 || replicas < 0
				|| warmupRuns < 0) {
			throw new IllegalArgumentException("jobs, concurrency, batch-cap, rate, runs and cluster masters must be "
					+ "positive, cluster replicas and warmup runs 0 or more");
		}
		if (partitions.stream().anyMatch((count) -> count < 1 || count > QueueSettings.MAX_PARTITIONS)) {
			throw new IllegalArgumentException("partitions " + partitions + " must each be from 1 to "
					+ QueueSettings.MAX_PARTITIONS);
		}
		if (memoryJobs < 1 || payloadBytes.stream().anyMatch((size) -> size < 2 || size > 1_000_000)) {
			throw new IllegalArgumentException("memory-jobs must be positive and payload-bytes each from 2 to 1,000,000");
		}
		if (backlogSample < 1 || backlogSizes.isEmpty() || backlogSizes.stream().anyMatch((size) -> size < 0)) {
			throw new IllegalArgumentException("backlog-sample must be positive and backlog-sizes 0 or more");
		}
		if (payloadSizes == null) {
			payloadSizes = List.of((paddedTo > 0) ? paddedTo : 60);
		}
		if (payloadSizes.isEmpty() || payloadSizes.stream().anyMatch((size) -> size < 2 || size > 1_000_000)
				|| producers < 1 || idle.isNegative() || idle.isZero()) {
			throw new IllegalArgumentException("payload-sizes must each be from 2 to 1,000,000, producers and "
					+ "idle-seconds positive");
		}
		if (jobsPerCall.isEmpty() || jobsPerCall.stream().anyMatch((count) -> count < 1 || count > 1_000)) {
			throw new IllegalArgumentException("jobs-per-call must each be from 1 to 1,000");
		}
		if (prefetch < -1) {
			throw new IllegalArgumentException("prefetch must be 0 or more (or -1 for the default)");
		}
		return new BenchmarkConfig(jobs, concurrency, batchCap, prefetch, rate, latency, runs, warmupRuns, url, out, reference, cluster,
				masters, replicas, partitions, memory, memoryJobs, payloadBytes, paddedTo, backlog, backlogSizes,
				backlogSample, payloadSizes, producers, idle, scriptCosts, jobsPerCall);
	}

}
