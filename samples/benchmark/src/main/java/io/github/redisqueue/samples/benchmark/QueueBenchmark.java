package io.github.redisqueue.samples.benchmark;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;

import io.github.redisqueue.annotation.EnableQueueListeners;
import io.github.redisqueue.config.DefaultQueueListenerContainerFactory;
import io.github.redisqueue.config.QueueListenerConfigUtils;
import io.github.redisqueue.config.QueueListenerEndpointRegistry;
import io.github.redisqueue.core.Batch;
import io.github.redisqueue.core.BatchState;
import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.QueueListenerContainer;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

/**
 * The benchmark: enqueue (one job per call, and bulk), drain through {@code @QueueListener}, the
 * same drain of one batch of sub-jobs under a concurrency cap, drain through the pull API alone,
 * and latency from enqueue to handler start at a fixed rate; each phase run several times,
 * reported as median, min and max with Redis round trips and JVM CPU per job. Run it with
 * {@code java -jar samples/benchmark/target/benchmark.jar [--jobs=N] [--concurrency=C]
 * [--batch-cap=B] [--prefetch=P] [--rate=R] [--latency-seconds=S] [--runs=K] [--redis-url=redis://host:port]
 * [--out=FILE] [--no-reference] [--payload-bytes=S]} ({@code --payload-bytes} pads the payload of
 * every phase to about S bytes of JSON; without it a payload is about 60 bytes); with {@code --cluster [--cluster-masters=M]
 * [--cluster-replicas=R] [--partitions=P1,P2,...]}, the drain on a local Redis Cluster instead,
 * once for each partition count of the queue (see {@link ClusterBenchmark}); with {@code --memory
 * [--memory-jobs=N] [--payload-bytes=S1,S2,...]}, Redis memory per queued job by payload size
 * instead (see {@link MemoryBenchmark}); with {@code --backlog [--backlog-sizes=B1,B2,...]
 * [--backlog-sample=N]}, the cost of a job with few and with many jobs waiting (see
 * {@link BacklogBenchmark}).
 */
public final class QueueBenchmark {

	private final BenchmarkConfig config;

	private final RedisUnderTest redis;

	private final QueueTemplate queues;

	private final QueueAdmin admin;

	private QueueBenchmark(BenchmarkConfig config, RedisUnderTest redis) {
		this.config = config;
		this.redis = redis;
		this.queues = new QueueTemplate(redis.connectionFactory());
		this.admin = new QueueAdmin(this.queues);
	}

	public static void main(String[] args) throws Exception {
		BenchmarkConfig config = BenchmarkConfig.parse(args);
		BenchPayload.padTo(config.paddedTo());
		listenerPrefetch = (config.prefetch() >= 0) ? config.prefetch() : null;
		if (config.cluster()) {
			ClusterBenchmark.main(config);
			return;
		}
		if (config.memory()) {
			MemoryBenchmark.main(config);
			return;
		}
		if (config.backlog()) {
			BacklogBenchmark.main(config);
			return;
		}
		Report report = run(config);
		System.out.println(report.table());
		report.write();
		System.out.println("JSON written to " + report.config().out().toAbsolutePath());
		System.exit(report.allAcknowledgedOnce() ? 0 : 1);
	}

	/** Run every phase and return the report. */
	static Report run(BenchmarkConfig config) throws Exception {
		try (RedisUnderTest redis = RedisUnderTest.start(config.redisUrl())) {
			return new QueueBenchmark(config, redis).runAll();
		}
	}

	private Report runAll() throws Exception {
		Map<String, Object> machine = new LinkedHashMap<>();
		machine.put("date", Instant.now().toString());
		machine.put("cpus", Runtime.getRuntime().availableProcessors());
		machine.put("java", System.getProperty("java.version"));
		machine.put("redisVersion", this.redis.version());
		machine.put("redis", this.redis.origin());
		machine.put("jobs", this.config.jobs());
		machine.put("concurrency", this.config.concurrency());
		machine.put("batchCap", this.config.batchCap());
		machine.put("prefetch", (this.config.prefetch() >= 0) ? this.config.prefetch() : "default");
		machine.put("runs", this.config.runs());
		machine.put("payloadBytes", (this.config.paddedTo() > 0) ? this.config.paddedTo() : "about 60");
		Figures single = new Figures("enqueue, 1 job/call, 1 thread", "jobs/s");
		Figures bulk = new Figures("enqueue, bulk (1000/call)", "jobs/s");
		String prefetch = (this.config.prefetch() >= 0) ? " prefetch " + this.config.prefetch() : "";
		Figures drain = new Figures("drain @QueueListener C=" + this.config.concurrency() + prefetch, "jobs/s");
		Figures batch = new Figures("batch cap " + this.config.batchCap() + ", @QueueListener C="
				+ this.config.concurrency(), "jobs/s");
		Figures pull = new Figures("drain pull API C=" + this.config.concurrency(), "jobs/s");
		String at = " @" + this.config.rate() + "/s";
		Figures p50 = new Figures("latency p50" + at, "ms");
		Figures p99 = new Figures("latency p99" + at, "ms");
		Figures p999 = new Figures("latency p99.9" + at, "ms");
		Figures pmax = new Figures("latency max" + at, "ms");
		Figures thinSingle = new Figures("thin loop: LPUSH, 1 job/call", "jobs/s");
		Figures thinBulk = new Figures("thin loop: LPUSH, 1000 jobs/call", "jobs/s");
		Figures thinDrain = new Figures("thin loop: LMOVE+LREM C=" + this.config.concurrency(), "jobs/s");
		Figures thinP50 = new Figures("thin loop: latency p50" + at, "ms");
		Figures thinP99 = new Figures("thin loop: latency p99" + at, "ms");
		long duplicates = 0;
		long missing = 0;
		for (int run = 0; run < this.config.runs(); run++) {
			enqueueSingle(single);
			enqueueBulk(bulk);
			long[] drained = drainListener(drain);
			duplicates += drained[0];
			missing += drained[1];
			long[] batched = drainBatch(batch);
			duplicates += batched[0];
			missing += batched[1];
			drainPull(pull);
			long[] latency = latency(p50, p99, p999, pmax);
			duplicates += latency[0];
			missing += latency[1];
			try (ThinLoop thin = new ThinLoop(this.redis, this.queues.getSerializer(), this.config.concurrency())) {
				thinSingle(thin, thinSingle);
				thinBulk(thin, thinBulk);
				thinDrain(thin, thinDrain);
				thinLatency(thin, thinP50, thinP99);
			}
		}
		Map<String, Object> reference = this.config.reference()
				? new ReferenceNumbers(this.redis.host(), this.redis.port()).measure() : Map.of();
		List<Figures> thin = List.of(thinSingle, thinBulk, thinDrain, thinP50, thinP99);
		List<Ratio> ratios = List.of(new Ratio(single, thinSingle), new Ratio(bulk, thinBulk), new Ratio(drain, thinDrain),
				new Ratio(pull, thinDrain), new Ratio(p50, thinP50), new Ratio(p99, thinP99));
		return new Report(this.config, machine, List.of(single, bulk, drain, batch, pull, p50, p99, p999, pmax),
				batch.median() / drain.median(), reference, duplicates, missing, thin, ratios);
	}

	private void enqueueSingle(Figures figures) {
		this.redis.flushAll();
		int n = this.config.jobs();
		Measure measure = start();
		for (int i = 0; i < n; i++) {
			this.queues.enqueue(BenchListener.QUEUE, BenchPayload.of(i, 0));
		}
		measure.stop(figures, n);
	}

	private void enqueueBulk(Figures figures) {
		this.redis.flushAll();
		int n = this.config.jobs();
		List<List<BenchPayload>> chunks = chunks(n, 1000);
		Measure measure = start();
		for (List<BenchPayload> chunk : chunks) {
			this.queues.enqueueAll(BenchListener.QUEUE, chunk, JobOptions.defaults());
		}
		measure.stop(figures, n);
	}

	private long[] drainListener(Figures figures) {
		this.redis.flushAll();
		int n = this.config.jobs();
		for (List<BenchPayload> chunk : chunks(n, 1000)) {
			this.queues.enqueueAll(BenchListener.QUEUE, chunk, JobOptions.defaults());
		}
		BenchListener listener = new BenchListener();
		try (AnnotationConfigApplicationContext context = listenerContext(listener)) {
			QueueListenerContainer container = container(context);
			Measure measure = start();
			container.start();
			await(() -> listener.handled() >= n && this.admin.counts(BenchListener.QUEUE).total("completed") >= n);
			measure.stop(figures, n);
			container.stop();
		}
		return new long[] { listener.duplicates(), n - listener.handled() };
	}

	/**
	 * The drain of one batch of {@code jobs} sub-jobs, capped at {@code batch-cap}, by the same
	 * container as {@link #drainListener(Figures)}: the batch is opened, fed in chunks of 1,000 and
	 * sealed first (as the plain drain enqueues its jobs first), then timed from the container's
	 * start until every sub-job was handled and the batch's status reads finished.
	 */
	private long[] drainBatch(Figures figures) {
		this.redis.flushAll();
		int n = this.config.jobs();
		BenchListener listener = new BenchListener();
		Batch batch = this.queues.batch(BenchListener.QUEUE).maxConcurrency(this.config.batchCap()).open();
		for (List<BenchPayload> chunk : chunks(n, 1000)) {
			batch.addAll(chunk);
		}
		batch.seal();
		try (AnnotationConfigApplicationContext context = listenerContext(listener)) {
			QueueListenerContainer container = container(context);
			Measure measure = start();
			container.start();
			await(() -> listener.handled() >= n && batch.status().isFinished());
			measure.stop(figures, n);
			container.stop();
			BatchStatus status = batch.status();
			if (status.state() != BatchState.COMPLETED || status.completed() != n) {
				throw new IllegalStateException("batch ended " + status.state() + " with " + status.completed()
						+ " of " + n + " sub-jobs completed");
			}
		}
		return new long[] { listener.duplicates(), n - listener.handled() };
	}

	private void drainPull(Figures figures) throws Exception {
		this.redis.flushAll();
		int n = this.config.jobs();
		for (List<BenchPayload> chunk : chunks(n, 1000)) {
			this.queues.enqueueAll(BenchListener.QUEUE, chunk, JobOptions.defaults());
		}
		ExecutorService pool = Executors.newFixedThreadPool(this.config.concurrency());
		AtomicLong done = new AtomicLong();
		Measure measure = start();
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < this.config.concurrency(); t++) {
			workers.add(pool.submit(() -> {
				while (true) {
					List<ReservedJob> jobs = this.queues.reserve(BenchListener.QUEUE, 10, Duration.ofMinutes(1));
					if (jobs.isEmpty()) {
						return null;
					}
					List<JobRef> refs = new ArrayList<>(jobs.size());
					for (ReservedJob job : jobs) {
						this.queues.readPayload(job, BenchPayload.class);
						refs.add(job.ref());
					}
					this.queues.completeAll(BenchListener.QUEUE, refs);
					done.addAndGet(jobs.size());
				}
			}));
		}
		for (Future<?> worker : workers) {
			worker.get();
		}
		measure.stop(figures, n);
		pool.shutdown();
		if (done.get() != n) {
			throw new IllegalStateException("pull drain handled " + done.get() + " of " + n);
		}
	}

	private long[] latency(Figures p50, Figures p99, Figures p999, Figures pmax) {
		this.redis.flushAll();
		int rate = this.config.rate();
		int n = (int) Math.max(1, rate * this.config.latencyDuration().toMillis() / 1000);
		BenchListener listener = new BenchListener();
		listener.expect(n);
		try (AnnotationConfigApplicationContext context = listenerContext(listener)) {
			QueueListenerContainer container = container(context);
			container.start();
			// let the container reach its blocking wait before the first job
			this.queues.reserve("warm-up", 1, Duration.ofSeconds(1));
			Measure measure = start();
			long interval = TimeUnit.SECONDS.toNanos(1) / rate;
			long next = System.nanoTime();
			for (int i = 0; i < n; i++) {
				LockSupport.parkNanos(next - System.nanoTime());
				this.queues.enqueue(BenchListener.QUEUE, BenchPayload.of(i, System.nanoTime()));
				next += interval;
			}
			await(() -> listener.handled() >= n);
			CommandStats.Delta commands = measure.commands();
			long cpu = measure.cpu();
			container.stop();
			long[] sorted = listener.latencies().clone();
			Arrays.sort(sorted);
			p50.add(percentile(sorted, 50), commands, n, cpu);
			p99.add(percentile(sorted, 99), commands, n, cpu);
			p999.add(percentile(sorted, 99.9), commands, n, cpu);
			pmax.add(sorted[sorted.length - 1] / 1e6, commands, n, cpu);
		}
		return new long[] { listener.duplicates(), n - listener.handled() };
	}

	/** The thin loop's enqueue of one job per call: the payload serialized, then LPUSH. */
	private void thinSingle(ThinLoop thin, Figures figures) {
		this.redis.flushAll();
		int n = this.config.jobs();
		Measure measure = start();
		for (int i = 0; i < n; i++) {
			thin.push(BenchPayload.of(i, 0));
		}
		measure.stop(figures, n);
	}

	/** The thin loop's bulk enqueue: 1,000 payloads per LPUSH. */
	private void thinBulk(ThinLoop thin, Figures figures) {
		this.redis.flushAll();
		int n = this.config.jobs();
		List<List<BenchPayload>> chunks = chunks(n, 1000);
		Measure measure = start();
		for (List<BenchPayload> chunk : chunks) {
			thin.pushAll(chunk);
		}
		measure.stop(figures, n);
	}

	/** The thin loop's drain: C consumers, each LMOVE to a processing list then LREM, no lease. */
	private void thinDrain(ThinLoop thin, Figures figures) throws Exception {
		this.redis.flushAll();
		int n = this.config.jobs();
		for (List<BenchPayload> chunk : chunks(n, 1000)) {
			thin.pushAll(chunk);
		}
		Measure measure = start();
		long taken = thin.drain();
		measure.stop(figures, n);
		if (taken != n) {
			throw new IllegalStateException("thin loop drained " + taken + " of " + n + " jobs");
		}
	}

	/** The thin loop's latency at the latency phase's rate: consumers blocked on BLMOVE. */
	private void thinLatency(ThinLoop thin, Figures p50, Figures p99) throws Exception {
		this.redis.flushAll();
		int rate = this.config.rate();
		int n = (int) Math.max(1, rate * this.config.latencyDuration().toMillis() / 1000);
		Measure measure = start();
		long[] sorted = thin.latencies(n, rate);
		CommandStats.Delta commands = measure.commands();
		long cpu = measure.cpu();
		Arrays.sort(sorted);
		p50.add(percentile(sorted, 50), commands, n, cpu);
		p99.add(percentile(sorted, 99), commands, n, cpu);
	}

	private static double percentile(long[] sorted, double p) {
		int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
	}

	private AnnotationConfigApplicationContext listenerContext(BenchListener listener) {
		return listenerContext(this.queues, this.config.concurrency(), listener);
	}

	/**
	 * A context whose {@code @QueueListener} container "bench" (not started) feeds {@code listener}.
	 * The container factory is given {@code queues}, so the container consumes the queue as that
	 * template's settings define it (over all its partitions, when they spread it over several).
	 */
	// the listener containers' prefetch from --prefetch; null keeps the library's default
	private static volatile Integer listenerPrefetch;

	static AnnotationConfigApplicationContext listenerContext(QueueTemplate queues, int concurrency,
			BenchListener listener) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("bench", Map.of("bench.concurrency", concurrency)));
		context.registerBean(QueueTemplate.class, () -> queues);
		context.registerBean(QueueListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME,
				DefaultQueueListenerContainerFactory.class, () -> {
					DefaultQueueListenerContainerFactory factory = new DefaultQueueListenerContainerFactory(queues);
					factory.setContainerOptions(ContainerOptions.builder().prefetch(listenerPrefetch).build());
					return factory;
				});
		context.registerBean(BenchListener.class, () -> listener);
		context.register(Listeners.class);
		context.refresh();
		return context;
	}

	static QueueListenerContainer container(AnnotationConfigApplicationContext context) {
		return context.getBean(QueueListenerConfigUtils.ENDPOINT_REGISTRY_BEAN_NAME, QueueListenerEndpointRegistry.class)
			.getListenerContainer("bench");
	}

	/** Write a mode's figures as JSON to {@code --out} and say where. */
	static void writeJson(BenchmarkConfig config, Object figures) throws java.io.IOException {
		Files.writeString(config.out(),
				JsonMapper.builder().build().writerWithDefaultPrettyPrinter().writeValueAsString(figures));
		System.out.println("JSON written to " + config.out().toAbsolutePath());
	}

	static List<List<BenchPayload>> chunks(int n, int size) {
		List<List<BenchPayload>> chunks = new ArrayList<>();
		for (int from = 0; from < n; from += size) {
			chunks.add(LongStream.range(from, Math.min(n, from + size)).mapToObj((i) -> BenchPayload.of(i, 0)).toList());
		}
		return chunks;
	}

	static void await(BooleanSupplier condition) {
		long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("phase did not finish within 10 minutes");
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
		}
	}

	private Measure start() {
		return new Measure(CommandStats.of(this.redis.info("commandstats"), this.redis.sent()), System.nanoTime(),
				processCpu());
	}

	static long processCpu() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

	/** Start of a measured phase. */
	private final class Measure {

		private final CommandStats before;

		private final long startNanos;

		private final long startCpu;

		Measure(CommandStats before, long startNanos, long startCpu) {
			this.before = before;
			this.startNanos = startNanos;
			this.startCpu = startCpu;
		}

		void stop(Figures figures, long jobs) {
			double seconds = (System.nanoTime() - this.startNanos) / 1e9;
			figures.add(jobs / seconds, commands(), jobs, cpu());
		}

		CommandStats.Delta commands() {
			return CommandStats.of(QueueBenchmark.this.redis.info("commandstats"),
					QueueBenchmark.this.redis.sent()).since(this.before);
		}

		long cpu() {
			return processCpu() - this.startCpu;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableQueueListeners
	static class Listeners {

	}

	/**
	 * What a benchmark run measured.
	 *
	 * @param batchToDrain the median jobs/s of the batch phase over that of the plain
	 * {@code @QueueListener} drain
	 */
	/**
	 * A figure of redis-queue against the thin loop's figure of the same kind.
	 * @param figure redis-queue's
	 * @param thin the thin loop's
	 */
	record Ratio(Figures figure, Figures thin) {

		double value() {
			return this.figure.median() / this.thin.median();
		}

		String row() {
			return String.format("%-34s / %-34s x %.2f", this.figure.phase(), this.thin.phase(), value());
		}

		Map<String, Object> toMap() {
			Map<String, Object> map = new LinkedHashMap<>();
			map.put("phase", this.figure.phase());
			map.put("thinLoopPhase", this.thin.phase());
			map.put("ratio", value());
			return map;
		}

	}

	record Report(BenchmarkConfig config, Map<String, Object> machine, List<Figures> figures, double batchToDrain,
			Map<String, Object> reference, long duplicates, long missing, List<Figures> thin, List<Ratio> ratios) {

		boolean allAcknowledgedOnce() {
			return this.duplicates == 0 && this.missing == 0;
		}

		String table() {
			StringBuilder out = new StringBuilder();
			out.append("redis-queue benchmark ").append(this.machine).append('\n');
			out.append(Figures.header()).append('\n');
			this.figures.forEach((figure) -> out.append(figure.row()).append('\n'));
			this.thin.forEach((figure) -> out.append(figure.row()).append('\n'));
			out.append("ratios to the thin loop (medians; for latency, lower is better):\n");
			this.ratios.forEach((ratio) -> out.append("  ").append(ratio.row()).append('\n'));
			out.append(String.format("batch drain / plain @QueueListener drain (medians): %.1f%%%n",
					this.batchToDrain * 100));
			out.append("rt/job = round trips per job (commands the client sent: script calls + others);\n")
				.append("eval/job = script calls; ")
				.append("cmds/job = every command Redis executed, inside scripts included; cpu = JVM process CPU.\n")
				.append("batch: one batch of all the jobs as sub-jobs (1000 per add), built first like the plain drain's jobs,\n")
				.append("then drained by the same container, timed from its start to the batch's status finished; per job = per sub-job.\n");
			out.append("delivered twice: ").append(this.duplicates).append(", never delivered: ").append(this.missing).append('\n');
			if (!this.reference.isEmpty()) {
				out.append("reference (redis-benchmark, requests/s): ").append(this.reference).append('\n');
			}
			return out.toString();
		}

		void write() throws java.io.IOException {
			Map<String, Object> json = new LinkedHashMap<>();
			json.put("machine", this.machine);
			json.put("phases", this.figures.stream().map(Figures::toMap).toList());
			json.put("thinLoop", this.thin.stream().map(Figures::toMap).toList());
			json.put("ratiosToThinLoop", this.ratios.stream().map(Ratio::toMap).toList());
			json.put("batchToListenerDrain", this.batchToDrain);
			json.put("reference", this.reference);
			json.put("deliveredTwice", this.duplicates);
			json.put("neverDelivered", this.missing);
			Files.writeString(this.config.out(),
					JsonMapper.builder().build().writerWithDefaultPrettyPrinter().writeValueAsString(json));
		}

	}

}
