package io.github.redisqueue.samples.benchmark;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.QueueListenerContainer;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

/**
 * The benchmark, at each payload size of {@code --payload-sizes}: enqueue (one job per call from
 * one thread and from {@code --producers} threads, and bulk), drain through {@code @QueueListener}
 * from a cold and from a warm container ({@link DrainPhase}), the same drain of one batch of
 * sub-jobs under a concurrency cap, drain through the pull API alone, and latency from enqueue to
 * handler start at a fixed rate on an idle started container ({@link LatencyPhase}); the thin loop
 * ({@link ThinLoop}) the same ways; and once, the idle cost of consumers ({@link IdleCost}). Each
 * phase runs several times, after {@code --warmup-runs} runs of every phase (1 by default) whose
 * figures are dropped, reported as median, min and max with Redis round trips, commands, Redis
 * time, JVM CPU and JVM heap allocation per job. Run it with
 * {@code java -jar samples/benchmark/target/benchmark.jar [--jobs=N] [--concurrency=C]
 * [--batch-cap=B] [--prefetch=P] [--rate=R] [--latency-seconds=S] [--runs=K] [--warmup-runs=W]
 * [--redis-url=redis://host:port]
 * [--out=FILE] [--no-reference] [--payload-sizes=60,1000,10000] [--producers=8] [--idle-seconds=10]}
 * (a payload is padded to about each size in bytes of JSON; 60 leaves it unpadded; without
 * {@code --payload-sizes}, the size of {@code --payload-bytes=S}, else 60); with {@code --cluster [--cluster-masters=M]
 * [--cluster-replicas=R] [--partitions=P1,P2,...]}, the drain on a local Redis Cluster instead,
 * once for each partition count of the queue (see {@link ClusterBenchmark}); with {@code --memory
 * [--memory-jobs=N] [--payload-bytes=S1,S2,...]}, Redis memory per queued job by payload size
 * instead (see {@link MemoryBenchmark}); with {@code --backlog [--backlog-sizes=B1,B2,...]
 * [--backlog-sample=N]}, the cost of a job with few and with many jobs waiting (see
 * {@link BacklogBenchmark}); with {@code --script-costs [--jobs-per-call=1,8,64]}, Redis time per job
 * of the reserve, start and completion scripts (see {@link ScriptCostBenchmark}).
 */
public final class QueueBenchmark {

	private final BenchmarkConfig config;

	private final RedisUnderTest redis;

	private final QueueTemplate queues;

	private QueueBenchmark(BenchmarkConfig config, RedisUnderTest redis) {
		this.config = config;
		this.redis = redis;
		this.queues = new QueueTemplate(redis.connectionFactory());
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
		if (config.scriptCosts()) {
			ScriptCostBenchmark.main(config);
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
		machine.put("producers", this.config.producers());
		machine.put("batchCap", this.config.batchCap());
		machine.put("prefetch", (this.config.prefetch() >= 0) ? this.config.prefetch() : "default");
		machine.put("runs", this.config.runs());
		machine.put("warmupRuns", this.config.warmupRuns());
		machine.put("rate", this.config.rate());
		machine.put("latencySeconds", this.config.latencyDuration().toMillis() / 1000.0);
		machine.put("idleSeconds", this.config.idleDuration().toMillis() / 1000.0);
		machine.put("payloadSizes", this.config.payloadSizes());
		int c = this.config.concurrency();
		List<PayloadSizeFigures> sizes = figuresOfEachSize();
		Figures[] idle = IdleCost.figures("@QueueListener C=" + c + ", ");
		Figures[] thinIdle = IdleCost.figures("thin: BLMOVE C=" + c + ", ");
		IdleCost idleCost = new IdleCost(this.redis, this.config.idleDuration());
		DrainPhase drains = new DrainPhase(this.redis, this.queues, c);
		// duplicates, then jobs never delivered, over every run (the warm-up's included)
		long[] lost = new long[2];
		try {
			List<PayloadSizeFigures> warmup = figuresOfEachSize();
			for (int run = -this.config.warmupRuns(); run < this.config.runs(); run++) {
				// a warm-up run measures into figures of its own, dropped
				for (PayloadSizeFigures size : (run < 0) ? warmup : sizes) {
					runPhases(size, drains, c, lost);
				}
				if (run >= 0) {
					idleCost.ours(this.queues, c, idle);
					try (ThinLoop thin = new ThinLoop(this.redis, this.queues.getSerializer(), c)) {
						idleCost.thin(thin, c, thinIdle);
					}
				}
			}
		}
		finally {
			BenchPayload.padTo(this.config.paddedTo());
		}
		Map<String, Object> reference = this.config.reference()
				? new ReferenceNumbers(this.redis.host(), this.redis.port()).measure() : Map.of();
		return new Report(this.config, machine, sizes, idle, thinIdle, reference, lost[0], lost[1]);
	}

	/** Empty figures for each payload size of {@code --payload-sizes}, in order. */
	private List<PayloadSizeFigures> figuresOfEachSize() {
		return this.config.payloadSizes().stream()
			.map((size) -> new PayloadSizeFigures(size, this.config, this.config.producers()))
			.toList();
	}

	/**
	 * One run of every phase at one payload size, redis-queue's then the thin loop's, adding the
	 * jobs delivered twice and never delivered to {@code lost}.
	 */
	private void runPhases(PayloadSizeFigures size, DrainPhase drains, int c, long[] lost) throws Exception {
		BenchPayload.padTo(size.payloadBytes);
		enqueueSingle(size.single);
		enqueueParallel(size.parallel);
		enqueueBulk(size.bulk);
		long[] cold = drains.cold(size.drainCold, this.config.jobs());
		LatencyPhase latency = new LatencyPhase(this.redis, this.config.rate(),
				this.config.latencyDuration().toMillis() / 1000.0, size.latency);
		long[] warm = drains.warm(size.drainWarm, this.config.jobs(), latency);
		long[] batched = drainBatch(size.batch);
		drainPull(size.pull);
		lost[0] += cold[0] + warm[0] + batched[0];
		lost[1] += cold[1] + warm[1] + batched[1];
		try (ThinLoop thin = new ThinLoop(this.redis, this.queues.getSerializer(), c)) {
			thinSingle(thin, size.thinSingle);
			thinParallel(thin, size.thinParallel);
			thinBulk(thin, size.thinBulk);
			drains.thin(thin, size.thinDrain, this.config.jobs());
			new LatencyPhase(this.redis, this.config.rate(), this.config.latencyDuration().toMillis() / 1000.0,
					size.thinLatency).thin(thin, c);
		}
	}

	private void enqueueSingle(Figures figures) {
		this.redis.flushAll();
		int n = this.config.jobs();
		Measure measure = Measure.start(this.redis);
		for (int i = 0; i < n; i++) {
			this.queues.enqueue(BenchListener.QUEUE, BenchPayload.of(i, 0));
		}
		measure.stop(figures, n);
	}

	/** One job per call from {@code --producers} threads sharing the template. */
	private void enqueueParallel(Figures figures) throws Exception {
		this.redis.flushAll();
		int n = this.config.jobs();
		int threads = this.config.producers();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			Measure measure = Measure.start(this.redis);
			List<Future<?>> running = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int first = t;
				running.add(pool.submit(() -> {
					for (int i = first; i < n; i += threads) {
						this.queues.enqueue(BenchListener.QUEUE, BenchPayload.of(i, 0));
					}
					return null;
				}));
			}
			for (Future<?> future : running) {
				future.get();
			}
			measure.stop(figures, n);
		}
		finally {
			pool.shutdownNow();
		}
	}

	private void enqueueBulk(Figures figures) {
		this.redis.flushAll();
		int n = this.config.jobs();
		List<List<BenchPayload>> chunks = chunks(n, 1000);
		Measure measure = Measure.start(this.redis);
		for (List<BenchPayload> chunk : chunks) {
			this.queues.enqueueAll(BenchListener.QUEUE, chunk, JobOptions.defaults());
		}
		measure.stop(figures, n);
	}

	/**
	 * The drain of one batch of {@code jobs} sub-jobs, capped at {@code batch-cap}, by the same
	 * container as the cold drain: the batch is opened, fed in chunks of 1,000 and sealed first (as
	 * the cold drain enqueues its jobs first), then timed from the container's start until every
	 * sub-job was handled and the batch's status reads finished.
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
			Measure measure = Measure.start(this.redis);
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
		Measure measure = Measure.start(this.redis);
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

	/** The thin loop's enqueue of one job per call: the payload serialized, then LPUSH. */
	private void thinSingle(ThinLoop thin, Figures figures) {
		this.redis.flushAll();
		int n = this.config.jobs();
		Measure measure = Measure.start(this.redis);
		for (int i = 0; i < n; i++) {
			thin.push(BenchPayload.of(i, 0));
		}
		measure.stop(figures, n);
	}

	/** The thin loop's enqueue of one job per call from {@code --producers} threads. */
	private void thinParallel(ThinLoop thin, Figures figures) throws Exception {
		this.redis.flushAll();
		int n = this.config.jobs();
		Measure measure = Measure.start(this.redis);
		thin.pushFromThreads(n, this.config.producers());
		measure.stop(figures, n);
	}

	/** The thin loop's bulk enqueue: 1,000 payloads per LPUSH. */
	private void thinBulk(ThinLoop thin, Figures figures) {
		this.redis.flushAll();
		int n = this.config.jobs();
		List<List<BenchPayload>> chunks = chunks(n, 1000);
		Measure measure = Measure.start(this.redis);
		for (List<BenchPayload> chunk : chunks) {
			thin.pushAll(chunk);
		}
		measure.stop(figures, n);
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
		writeJson(config, figures, true);
	}

	private static void writeJson(BenchmarkConfig config, Object figures, boolean say) throws java.io.IOException {
		Files.writeString(config.out(),
				JsonMapper.builder().build().writerWithDefaultPrettyPrinter().writeValueAsString(figures));
		if (say) {
			System.out.println("JSON written to " + config.out().toAbsolutePath());
		}
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

	static long processCpu() {
		return Measure.processCpu();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableQueueListeners
	static class Listeners {

	}

	/**
	 * What a benchmark run measured.
	 *
	 * @param sizes the figures of each payload size
	 * @param idle the idle cost of one started container: commands executed and sent per second
	 * @param thinIdle the same for the thin loop's blocked consumers
	 */
	record Report(BenchmarkConfig config, Map<String, Object> machine, List<PayloadSizeFigures> sizes, Figures[] idle,
			Figures[] thinIdle, Map<String, Object> reference, long duplicates, long missing) {

		boolean allAcknowledgedOnce() {
			return this.duplicates == 0 && this.missing == 0;
		}

		String table() {
			StringBuilder out = new StringBuilder();
			out.append("redis-queue benchmark ").append(this.machine).append('\n');
			this.sizes.forEach((size) -> out.append(size.table()));
			out.append("--- idle, no jobs (per-job columns read per second) ---\n").append(Figures.header()).append('\n');
			for (Figures figures : List.of(this.idle[0], this.idle[1], this.thinIdle[0], this.thinIdle[1])) {
				out.append(figures.row()).append('\n');
			}
			out.append("rt/job = round trips per job (commands the client sent: script calls + others); eval/job = script calls;\n")
				.append("cmds/job = every command Redis executed, inside scripts included (INFO commandstats calls);\n")
				.append("redis us = Redis time per job (INFO commandstats usec of script calls and of commands clients sent);\n")
				.append("cpu = JVM process CPU; alloc B/j = bytes the JVM allocated on its heap per job, all threads.\n")
				.append("Drains are timed until every job is handled and counted completed in Redis:\n")
				.append("cold = container started inside the timing on a waiting backlog; warm = container running, backlog\n")
				.append("enqueued while the queue was paused, timed from resume. Latency = handler start - nanoTime taken just\n")
				.append("before enqueue, one producer thread at the fixed rate, consumers started and idle (blocked) before.\n")
				.append("batch: one batch of all the jobs as sub-jobs, drained like the cold drain; per job = per sub-job.\n");
			out.append("delivered twice: ").append(this.duplicates).append(", never delivered: ").append(this.missing).append('\n');
			if (!this.reference.isEmpty()) {
				out.append("reference (redis-benchmark, requests/s): ").append(this.reference).append('\n');
			}
			return out.toString();
		}

		void write() throws java.io.IOException {
			Map<String, Object> json = new LinkedHashMap<>();
			json.put("machine", this.machine);
			json.put("payloadSizes", this.sizes.stream().map(PayloadSizeFigures::toMap).toList());
			json.put("idle", List.of(this.idle[0].toMap(), this.idle[1].toMap()));
			json.put("thinLoopIdle", List.of(this.thinIdle[0].toMap(), this.thinIdle[1].toMap()));
			json.put("reference", this.reference);
			json.put("deliveredTwice", this.duplicates);
			json.put("neverDelivered", this.missing);
			writeJson(this.config, json, false);
		}

	}

}
