package io.github.redisqueue.samples.benchmark;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.JobStarts;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;

/**
 * The script-cost benchmark ({@code --script-costs}): what each script on a job's way costs Redis,
 * apart from the client, the listener container and the machine's other load. For each number of
 * jobs per call of {@code --jobs-per-call}, and each run: {@code --jobs} jobs of the first size of
 * {@code --payload-sizes} are enqueued (1,000 per call), then reserved from one thread, that many
 * per call, all reserved ahead (as a container reserves beyond its free threads), then their starts
 * recorded, that many per call, then their completions sent, that many per call. Each of the three
 * phases reports Redis time per job ({@code usec} of the script calls in {@code INFO commandstats}:
 * Redis's own measure, so a busy client does not change it) and the commands Redis executed per job.
 * At one job per call a figure is the cost of a call; with many jobs per call, the cost of a job.
 */
final class ScriptCostBenchmark {

	private static final String QUEUE = "script-costs";

	private static final String[] PHASES = { "reserve", "start", "completion" };

	private final BenchmarkConfig config;

	private final RedisUnderTest redis;

	private ScriptCostBenchmark(BenchmarkConfig config, RedisUnderTest redis) {
		this.config = config;
		this.redis = redis;
	}

	static void main(BenchmarkConfig config) throws Exception {
		QueueBenchmark.writeJson(config, measure(config));
	}

	/** Measure every number of jobs per call and print the table; the figures, for the JSON. */
	static Map<String, Object> measure(BenchmarkConfig config) throws Exception {
		try (RedisUnderTest redis = RedisUnderTest.start(config.redisUrl())) {
			return new ScriptCostBenchmark(config, redis).run();
		}
	}

	private Map<String, Object> run() {
		QueueTemplate queues = new QueueTemplate(this.redis.connectionFactory());
		JobStarts starts = new JobStarts(queues);
		int payloadBytes = this.config.payloadSizes().get(0);
		BenchPayload.padTo(payloadBytes);
		StringBuilder out = new StringBuilder("redis-queue script costs: ").append(this.config.jobs())
			.append(" jobs of about ")
			.append(payloadBytes)
			.append(" bytes per run, ")
			.append(this.config.runs())
			.append(" runs, Redis ")
			.append(this.redis.version())
			.append("; medians (min-max) of Redis time per job, us, and commands executed per job\n");
		out.append(String.format("%14s %26s %26s %26s%n", "jobs per call", "reserve", "start", "completion"));
		List<Map<String, Object>> rows = new ArrayList<>();
		for (int perCall : this.config.jobsPerCall()) {
			List<List<double[]>> byPhase = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
			for (int run = 0; run < this.config.runs(); run++) {
				double[][] phases = once(queues, starts, perCall);
				for (int p = 0; p < PHASES.length; p++) {
					byPhase.get(p).add(phases[p]);
				}
			}
			Map<String, Object> row = new LinkedHashMap<>();
			row.put("jobsPerCall", perCall);
			StringBuilder line = new StringBuilder(String.format("%14d", perCall));
			for (int p = 0; p < PHASES.length; p++) {
				double[] micros = byPhase.get(p).stream().mapToDouble((figures) -> figures[0]).sorted().toArray();
				double[] commands = byPhase.get(p).stream().mapToDouble((figures) -> figures[1]).sorted().toArray();
				line.append(String.format("%26s", String.format("%.1f (%.1f-%.1f) %.2f", median(micros), micros[0],
						micros[micros.length - 1], median(commands))));
				Map<String, Object> figures = new LinkedHashMap<>();
				figures.put("redisMicrosPerJob", micros);
				figures.put("medianRedisMicrosPerJob", median(micros));
				figures.put("commandsPerJob", median(commands));
				row.put(PHASES[p], figures);
			}
			out.append(line).append('\n');
			rows.add(row);
		}
		System.out.print(out);
		Map<String, Object> report = new LinkedHashMap<>();
		report.put("date", Instant.now().toString());
		report.put("redisVersion", this.redis.version());
		report.put("jobsPerRun", this.config.jobs());
		report.put("payloadBytes", payloadBytes);
		report.put("rows", rows);
		return report;
	}

	/** One run: Redis time and commands per job of each phase, in the order of {@link #PHASES}. */
	private double[][] once(QueueTemplate queues, JobStarts starts, int perCall) {
		this.redis.flushAll();
		int n = this.config.jobs();
		for (List<BenchPayload> chunk : QueueBenchmark.chunks(n, 1000)) {
			queues.enqueueAll(QUEUE, chunk, JobOptions.defaults());
		}
		double[][] phases = new double[PHASES.length][];
		List<List<JobRef>> calls = new ArrayList<>();
		Measure measure = Measure.start(this.redis);
		int reserved = 0;
		while (reserved < n) {
			List<JobRef> refs = queues.reserveBatch(QUEUE, Math.min(perCall, n - reserved), Duration.ofMinutes(5), "bench",
					List.of(), 0, 0).jobs().stream().map(ReservedJob::ref).toList();
			if (refs.isEmpty()) {
				throw new IllegalStateException("reserved " + reserved + " of " + n + " jobs");
			}
			calls.add(refs);
			reserved += refs.size();
		}
		phases[0] = perJob(measure, n);
		measure = Measure.start(this.redis);
		for (List<JobRef> refs : calls) {
			starts.startAndComplete(QUEUE, refs, List.of());
		}
		phases[1] = perJob(measure, n);
		measure = Measure.start(this.redis);
		for (List<JobRef> refs : calls) {
			queues.completeAll(QUEUE, refs);
		}
		phases[2] = perJob(measure, n);
		return phases;
	}

	private static double[] perJob(Measure measure, int jobs) {
		CommandStats.Delta delta = measure.commands();
		return new double[] { delta.redisMicros() / jobs, (double) delta.executed() / jobs };
	}

	private static double median(double[] sorted) {
		int mid = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
	}

}
