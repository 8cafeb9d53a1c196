package io.github.redisqueue.samples.benchmark;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.QueueListenerContainer;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * The backlog benchmark ({@code --backlog}): whether the cost of a job grows with the jobs
 * waiting ahead of it. For each size of {@code --backlog-sizes} (1,000 and 1,000,000 by default),
 * a flushed Redis is given that many waiting jobs plus {@code --backlog-sample} more, then two
 * things are measured: the reserve-and-complete round of one job on one thread (2,000 rounds,
 * one job enqueued before each so the backlog stays the same; p50 and p99), and the
 * {@code @QueueListener} drain (C = {@code --concurrency}) of the sample, timed until it is handled
 * while the backlog still waits behind it.
 */
final class BacklogBenchmark {

	private static final int ROUNDS = 2_000;

	private final BenchmarkConfig config;

	private final RedisUnderTest redis;

	private final QueueTemplate queues;

	private BacklogBenchmark(BenchmarkConfig config, RedisUnderTest redis) {
		this.config = config;
		this.redis = redis;
		this.queues = new QueueTemplate(redis.connectionFactory());
	}

	static void main(BenchmarkConfig config) throws Exception {
		Map<String, Object> report = measure(config);
		QueueBenchmark.writeJson(config, report);
	}

	/** Measure every backlog size, print the table; the figures, for the JSON. */
	static Map<String, Object> measure(BenchmarkConfig config) throws Exception {
		try (RedisUnderTest redis = RedisUnderTest.start(config.redisUrl())) {
			return new BacklogBenchmark(config, redis).run();
		}
	}

	private Map<String, Object> run() {
		List<Integer> sizes = this.config.backlogSizes();
		List<Figures[]> figures = new ArrayList<>();
		for (int size : sizes) {
			String of = " with " + String.format(Locale.ROOT, "%,d", size) + " waiting";
			figures.add(new Figures[] { new Figures("reserve+complete p50" + of, "us"),
					new Figures("reserve+complete p99" + of, "us"),
					new Figures("drain @QueueListener C=" + this.config.concurrency() + of, "jobs/s") });
		}
		for (int run = 0; run < this.config.runs(); run++) {
			for (int i = 0; i < sizes.size(); i++) {
				measure(sizes.get(i), figures.get(i));
			}
		}
		StringBuilder out = new StringBuilder("redis-queue backlog benchmark: Redis ").append(this.redis.version())
			.append(", sample ")
			.append(this.config.backlogSample())
			.append(" jobs, ")
			.append(this.config.runs())
			.append(" runs\n");
		out.append(Figures.header()).append('\n');
		figures.forEach((row) -> Arrays.stream(row).forEach((figure) -> out.append(figure.row()).append('\n')));
		Figures[] first = figures.get(0);
		for (int i = 1; i < figures.size(); i++) {
			Figures[] row = figures.get(i);
			out.append(String.format(Locale.ROOT, "%,d waiting / %,d waiting (medians): reserve+complete p50 x %.2f, p99 x %.2f, "
					+ "drain x %.2f%n", sizes.get(i), sizes.get(0), row[0].median() / first[0].median(),
					row[1].median() / first[1].median(), row[2].median() / first[2].median()));
		}
		System.out.print(out);
		Map<String, Object> report = new LinkedHashMap<>();
		report.put("date", Instant.now().toString());
		report.put("redisVersion", this.redis.version());
		report.put("sample", this.config.backlogSample());
		report.put("sizes", sizes);
		report.put("phases", figures.stream().flatMap(Arrays::stream).map(Figures::toMap).toList());
		return report;
	}

	private void measure(int backlog, Figures[] figures) {
		int sample = this.config.backlogSample();
		this.redis.flushAll();
		for (List<BenchPayload> chunk : QueueBenchmark.chunks(backlog + sample, 1000)) {
			this.queues.enqueueAll(BenchListener.QUEUE, chunk, JobOptions.defaults());
		}
		long[] rounds = new long[ROUNDS];
		CommandStats before = commands();
		long cpu = QueueBenchmark.processCpu();
		for (int i = 0; i < ROUNDS; i++) {
			this.queues.enqueue(BenchListener.QUEUE, BenchPayload.of(backlog + sample + i, 0));
			long start = System.nanoTime();
			List<ReservedJob> jobs = this.queues.reserve(BenchListener.QUEUE, 1, Duration.ofMinutes(1));
			this.queues.complete(BenchListener.QUEUE, jobs.get(0).ref());
			rounds[i] = System.nanoTime() - start;
		}
		CommandStats.Delta commands = commands().since(before);
		long cpuUsed = QueueBenchmark.processCpu() - cpu;
		Arrays.sort(rounds);
		figures[0].add(rounds[ROUNDS / 2] / 1e3, commands, ROUNDS, cpuUsed);
		figures[1].add(rounds[ROUNDS * 99 / 100] / 1e3, commands, ROUNDS, cpuUsed);
		BenchListener listener = new BenchListener();
		try (AnnotationConfigApplicationContext context = QueueBenchmark.listenerContext(this.queues,
				this.config.concurrency(), listener)) {
			QueueListenerContainer container = QueueBenchmark.container(context);
			CommandStats drainBefore = commands();
			long drainCpu = QueueBenchmark.processCpu();
			long start = System.nanoTime();
			container.start();
			QueueBenchmark.await(() -> listener.handled() >= sample);
			double seconds = (System.nanoTime() - start) / 1e9;
			figures[2].add(sample / seconds, commands().since(drainBefore), sample,
					QueueBenchmark.processCpu() - drainCpu);
			container.stop();
		}
	}

	private CommandStats commands() {
		return CommandStats.of(this.redis.info("commandstats"), this.redis.sent());
	}

}
