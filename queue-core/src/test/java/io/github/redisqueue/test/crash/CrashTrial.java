package io.github.redisqueue.test.crash;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.github.redisqueue.core.EnqueueResult;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueCounts;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.crash.TrialEvents.EnqueueCall;
import io.github.redisqueue.test.crash.TrialEvents.Fault;
import io.github.redisqueue.test.crash.TrialEvents.Incarnation;
import io.github.redisqueue.test.crash.TrialEvents.WorkerStop;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.RespClient;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A fault-injection trial of the queue: worker JVMs ({@link CrashWorkerMain}) consume one queue
 * of a private Redis (append-only file, {@code appendfsync always}) while a producer in this JVM
 * enqueues jobs, single and in bulk, at a steady pace, and a fault injector, on one thread so
 * that faults never overlap, SIGKILLs (or now and then SIGTERMs) a worker and starts it again
 * with the same worker id, SIGKILLs Redis and starts it again on the same port and data,
 * flushes the script cache and kills every client connection. Each worker journals its handler
 * runs outside Redis; {@link #finish()} judges the journals against what the producer was told
 * and what the fault injector did ({@link TrialReport}).
 *
 * <p>Every process is started and stopped through its {@link Process} handle (by PID), binds or
 * connects to 127.0.0.1 only, and every loop is bounded by a count or a time.
 */
public final class CrashTrial implements AutoCloseable {

	private static final Duration WORKER_START_TIMEOUT = Duration.ofSeconds(60);

	private static final int WORKER_START_TRIES = 3;

	private static final int MAX_ENQUEUE_TRIES = 200;

	/**
	 * How a trial runs.
	 * @param queue the queue name
	 * @param jobs jobs to enqueue
	 * @param workers worker processes running at once
	 * @param concurrency handler threads per worker
	 * @param prefetch jobs each worker reserves beyond its threads
	 * @param lease lease of each job
	 * @param production how long the producer spreads its jobs over; faults happen only meanwhile
	 * @param minWorkMillis shortest handler run
	 * @param maxWorkMillis longest handler run
	 * @param bulkShare share of the jobs enqueued by bulk calls
	 * @param maxBulk largest bulk call
	 * @param maxAttempts attempts of each job: a job dies after this many runs that failed or were
	 * taken back, so it must exceed the times one job can be unlucky enough to be held by a
	 * stopped worker (a job that kills its worker is dead-lettered by design, which other tests
	 * cover; this trial's jobs never fail)
	 * @param workerStopEvery pause between two worker stops
	 * @param sigtermEvery every n-th worker stop is a SIGTERM instead of a SIGKILL (0: never)
	 * @param redisKills SIGKILLs of Redis, spread over the production
	 * @param scriptFlushEvery pause between two {@code SCRIPT FLUSH} (each with a {@code FUNCTION FLUSH})
	 * @param clientKillEvery pause between two {@code CLIENT KILL TYPE normal}
	 * @param fsync whether workers fsync their journal after each line (a line is written by one
	 * {@code write} call either way, which a killed process cannot lose)
	 * @param seed of the random choices (work time, bulk sizes)
	 */
	public record Settings(String queue, int jobs, int workers, int concurrency, int prefetch, Duration lease,
			Duration production, int minWorkMillis, int maxWorkMillis, double bulkShare, int maxBulk, int maxAttempts,
			Duration workerStopEvery, int sigtermEvery, int redisKills, Duration scriptFlushEvery,
			Duration clientKillEvery, boolean fsync, long seed) {

		/** The version CI runs: 5,000 jobs over 40 seconds, 3 workers. */
		public static Settings ci() {
			return new Settings("crash", 5_000, 3, 4, 4, Duration.ofSeconds(10), Duration.ofSeconds(40), 5, 60, 0.5,
					150, 5, Duration.ofMillis(3500), 4, 2, Duration.ofSeconds(5), Duration.ofSeconds(7), false,
					System.nanoTime());
		}

		/**
		 * The long version: 100,000 jobs over 5 minutes, 4 workers, the same faults,
		 * the default lease of 30 s (its append-only file grows to where a restarted Redis loads
		 * for seconds).
		 */
		public static Settings full() {
			return new Settings("crash", 100_000, 4, 4, 4, Duration.ofSeconds(30), Duration.ofMinutes(5), 5, 40,
					0.5, 200, 5, Duration.ofSeconds(5), 4, 2, Duration.ofSeconds(10), Duration.ofSeconds(15), false,
					System.nanoTime());
		}

	}

	/** Builds the command line of a worker JVM from its system-property arguments. */
	@FunctionalInterface
	public interface WorkerCommand {

		List<String> command(List<String> properties);

	}

	/**
	 * Worker JVMs started with {@code java -cp <classpath> CrashWorkerMain}.
	 * @param classpath the class path (the test class path, for a test)
	 * @return the command builder
	 */
	public static WorkerCommand classpath(String classpath) {
		return (properties) -> {
			List<String> command = new ArrayList<>(javaCommand());
			command.addAll(properties);
			command.addAll(List.of("-cp", classpath, CrashWorkerMain.class.getName()));
			return command;
		};
	}

	/** {@code java} of this JVM with small-footprint options for worker JVMs. */
	public static List<String> javaCommand() {
		return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
				"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k");
	}

	private final Settings settings;

	private final RedisServerProcess redis;

	private final WorkerCommand workerCommand;

	private final Path dir;

	private final Consumer<String> log;

	private final Random random;

	private final LettuceConnectionFactory connectionFactory;

	private final QueueTemplate queues;

	private final QueueAdmin admin;

	private final StringRedisTemplate observer;

	private final List<WorkerSlot> slots = new ArrayList<>();

	private final List<Incarnation> incarnations = Collections.synchronizedList(new ArrayList<>());

	private final List<WorkerStop> stops = Collections.synchronizedList(new ArrayList<>());

	private final List<Fault> faults = Collections.synchronizedList(new ArrayList<>());

	private final List<EnqueueCall> calls = Collections.synchronizedList(new ArrayList<>());

	private final CompletableFuture<Void> produced = new CompletableFuture<>();

	private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

	private final ScheduledExecutorService producer = Executors.newSingleThreadScheduledExecutor(
			(runnable) -> daemon(runnable, "crash-producer"));

	private final ScheduledExecutorService injector = Executors.newSingleThreadScheduledExecutor(
			(runnable) -> daemon(runnable, "crash-faults"));

	private final Thread exitHook = new Thread(this::killOnExit, "crash-trial-exit");

	private final ExecutorService starter = Executors.newCachedThreadPool((runnable) -> daemon(runnable, "crash-starter"));

	private volatile @Nullable ScheduledFuture<?> producing;

	private long startedAt;

	private int producedJobs;

	private final List<Retry> toRetry = new ArrayList<>();

	private int workerStops;

	private int redisKills;

	private long nextWorkerStop;

	private long nextScriptFlush;

	private long nextClientKill;

	/**
	 * @param settings how to run
	 * @param redis the trial's own server, started, with the append-only file on; the trial
	 * kills and restarts it, the caller closes it
	 * @param workerCommand how to start a worker JVM
	 * @param dir where journals and logs go
	 * @param log progress messages
	 */
	public CrashTrial(Settings settings, RedisServerProcess redis, WorkerCommand workerCommand, Path dir,
			Consumer<String> log) {
		this.settings = settings;
		this.redis = redis;
		this.workerCommand = workerCommand;
		this.dir = dir;
		this.log = log;
		this.random = new Random(settings.seed());
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.queues = new QueueTemplate(this.connectionFactory);
		this.admin = new QueueAdmin(this.queues);
		this.observer = new StringRedisTemplate(this.connectionFactory);
		for (int i = 1; i <= settings.workers(); i++) {
			this.slots.add(new WorkerSlot(i));
		}
		Runtime.getRuntime().addShutdownHook(this.exitHook);
	}

	/**
	 * Start the workers and the producer at once, and the fault injector as soon as every
	 * worker runs (jobs pile up meanwhile, which fills the workers' prefetch from the start).
	 */
	public void start() {
		this.log.accept("crash trial: " + this.settings + ", redis pid " + this.redis.pid() + " on port "
				+ this.redis.port() + ", files in " + this.dir);
		this.queues.preloadScripts();
		for (WorkerSlot slot : this.slots) {
			slot.startAsync();
		}
		this.startedAt = System.currentTimeMillis();
		this.producing = this.producer.scheduleAtFixedRate(this::produce, 50, 50, TimeUnit.MILLISECONDS);
		for (WorkerSlot slot : this.slots) {
			slot.awaitStarted();
		}
		long elapsed = System.currentTimeMillis() - this.startedAt;
		this.nextWorkerStop = elapsed + this.settings.workerStopEvery().toMillis() / 2;
		this.nextScriptFlush = elapsed + this.settings.scriptFlushEvery().toMillis() / 2;
		this.nextClientKill = elapsed + this.settings.clientKillEvery().toMillis() / 2;
		this.log.accept("crash trial: workers running after " + elapsed + " ms; faults from now on");
		this.injector.scheduleWithFixedDelay(this::injectFaults, 0, 250, TimeUnit.MILLISECONDS);
	}

	/**
	 * Wait until every job was enqueued, then stop injecting faults (the fault under way ends first).
	 * @param timeout the longest wait
	 */
	public void awaitProduction(Duration timeout) {
		try {
			this.produced.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException("The producer did not enqueue its " + this.settings.jobs()
					+ " jobs within " + timeout + " (" + this.producedJobs + " so far)", failureOr(ex));
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("The producer failed", ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
		finally {
			stopFaults();
		}
		Throwable failed = this.failure.get();
		if (failed != null) {
			throw new IllegalStateException("The fault injector failed", failed);
		}
		this.log.accept("crash trial: " + this.settings.jobs() + " jobs enqueued in "
				+ (System.currentTimeMillis() - this.startedAt) + " ms");
	}

	private Throwable failureOr(Throwable other) {
		Throwable failed = this.failure.get();
		return (failed != null) ? failed : other;
	}

	private void stopFaults() {
		this.injector.shutdown();
		try {
			if (!this.injector.awaitTermination(2, TimeUnit.MINUTES)) {
				this.injector.shutdownNow();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Jobs ready, delayed or in flight now. */
	public long pending() {
		return this.admin.counts(this.settings.queue()).pending();
	}

	/** Whether every job was enqueued and none is left to run. */
	public boolean drained() {
		if (!this.produced.isDone()) {
			return false;
		}
		try {
			return pending() == 0;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/** Where the queue stands, for a message. */
	public String progress() {
		try {
			return this.admin.counts(this.settings.queue()).toString();
		}
		catch (RuntimeException ex) {
			return "counts not readable: " + ex;
		}
	}

	/**
	 * Stop the workers gracefully and judge the trial.
	 * @return the report
	 */
	public TrialReport finish() {
		stopFaults();
		this.producer.shutdownNow();
		for (WorkerSlot slot : this.slots) {
			slot.awaitStarted();
			slot.terminate();
		}
		for (WorkerSlot slot : this.slots) {
			slot.stopAtEnd();
		}
		QueueCounts counts = this.admin.counts(this.settings.queue());
		String queue = this.settings.queue();
		return TrialReport.analyse(this.settings.jobs(), this.settings.workers(), this.settings.lease(),
				List.copyOf(this.incarnations),
				List.copyOf(this.stops), List.copyOf(this.faults), List.copyOf(this.calls), counts,
				(id) -> this.admin.job(queue, id).map((job) -> job.state().name().toLowerCase(Locale.ROOT))
					.orElse("gone"));
	}

	@Override
	public void close() {
		this.injector.shutdownNow();
		this.producer.shutdownNow();
		this.starter.shutdownNow();
		for (WorkerSlot slot : this.slots) {
			slot.kill();
		}
		this.connectionFactory.destroy();
		try {
			Runtime.getRuntime().removeShutdownHook(this.exitHook);
		}
		catch (IllegalStateException ex) {
			// the JVM is shutting down: the hook runs anyway
		}
	}

	private void killOnExit() {
		for (WorkerSlot slot : this.slots) {
			Process process = slot.process;
			if (process != null) {
				process.destroyForcibly();
			}
		}
	}

	// ---- producer

	private void produce() {
		try {
			long elapsed = System.currentTimeMillis() - this.startedAt;
			int jobs = this.settings.jobs();
			long target = Math.min(jobs, (jobs * elapsed + this.settings.production().toMillis() - 1)
					/ this.settings.production().toMillis());
			double averageBulk = (10 + this.settings.maxBulk()) / 2.0;
			double bulkChance = this.settings.bulkShare()
					/ (averageBulk * (1 - this.settings.bulkShare()) + this.settings.bulkShare());
			retryFailedSingles();
			for (int calls = 0; this.producedJobs < target && calls < 1000; calls++) {
				int remaining = jobs - this.producedJobs;
				if (this.random.nextDouble() < bulkChance && remaining > 1) {
					enqueueBulk(Math.min(remaining, 10 + this.random.nextInt(this.settings.maxBulk() - 9)));
				}
				else {
					CrashJob job = nextJob();
					if (!enqueueSingle(job)) {
						this.toRetry.add(new Retry(job, 1));
					}
				}
			}
			if (this.producedJobs >= jobs && this.toRetry.isEmpty()) {
				this.produced.complete(null);
				ScheduledFuture<?> schedule = this.producing;
				if (schedule != null) {
					schedule.cancel(false);
				}
			}
		}
		catch (RuntimeException | Error ex) {
			if (!this.produced.isDone()) {
				this.produced.completeExceptionally(ex);
			}
			throw ex;
		}
	}

	private CrashJob nextJob() {
		this.producedJobs++;
		return new CrashJob("k" + this.producedJobs, this.settings.minWorkMillis()
				+ this.random.nextInt(this.settings.maxWorkMillis() - this.settings.minWorkMillis() + 1));
	}

	private JobOptions options() {
		return JobOptions.builder().maxAttempts(this.settings.maxAttempts()).build();
	}

	/**
	 * A single enqueue carries its key as idempotency key: after an ambiguous failure (Redis
	 * restarting, connection cut, timeout) it is sent again until it answers, and a repeat returns
	 * the first job whether or not the failed call created it.
	 */
	private boolean enqueueSingle(CrashJob job) {
		long start = System.currentTimeMillis();
		try {
			EnqueueResult result = this.queues.enqueue(this.settings.queue(), job,
					options().toBuilder().idempotencyKey(job.key()).build());
			this.calls.add(new EnqueueCall(List.of(job.key()), false, true, start, System.currentTimeMillis(),
					List.of(result.id()), null));
			return true;
		}
		catch (RuntimeException ex) {
			String error = rootCause(ex);
			this.calls.add(new EnqueueCall(List.of(job.key()), false, true, start, System.currentTimeMillis(), null,
					error));
			this.log.accept("crash trial: enqueue of " + job.key() + " failed, to be sent again: " + error);
			return false;
		}
	}

	/** Failed singles go again, one try per tick (the pace of the producer is their back-off). */
	private void retryFailedSingles() {
		List<Retry> again = new ArrayList<>(this.toRetry);
		this.toRetry.clear();
		for (Retry retry : again) {
			if (!enqueueSingle(retry.job())) {
				if (retry.tries() < MAX_ENQUEUE_TRIES) {
					this.toRetry.add(new Retry(retry.job(), retry.tries() + 1));
				}
				else {
					this.log.accept("crash trial: giving up on " + retry.job().key() + " after " + retry.tries()
							+ " tries; it counts if it shows up");
				}
			}
		}
	}

	/**
	 * A bulk enqueue has no idempotency key (one would name every job of the call): after a
	 * failure its jobs may exist or not, and count if they show up.
	 */
	private void enqueueBulk(int count) {
		List<String> keys = new ArrayList<>(count);
		List<CrashJob> payloads = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			CrashJob job = nextJob();
			keys.add(job.key());
			payloads.add(job);
		}
		long start = System.currentTimeMillis();
		try {
			List<EnqueueResult> results = this.queues.enqueueAll(this.settings.queue(), payloads, options());
			this.calls.add(new EnqueueCall(keys, true, false, start, System.currentTimeMillis(),
					results.stream().map(EnqueueResult::id).toList(), null));
		}
		catch (RuntimeException ex) {
			String error = rootCause(ex);
			this.calls.add(new EnqueueCall(keys, true, false, start, System.currentTimeMillis(), null, error));
			this.log.accept("crash trial: bulk enqueue of " + count + " jobs failed: " + error);
		}
	}

	private record Retry(CrashJob job, int tries) {
	}

	// ---- faults

	private void injectFaults() {
		try {
			long elapsed = System.currentTimeMillis() - this.startedAt;
			if (this.produced.isDone() || elapsed > this.settings.production().toMillis()) {
				return;
			}
			int maxStops = (int) (this.settings.production().toMillis() / this.settings.workerStopEvery().toMillis()) + 1;
			if (elapsed >= this.nextWorkerStop && this.workerStops < maxStops) {
				// the next worker in turn that runs (one still starting after its last stop waits)
				for (int i = 0; i < this.slots.size(); i++) {
					WorkerSlot slot = this.slots.get((this.workerStops + i) % this.slots.size());
					if (slot.isRunning()) {
						this.workerStops++;
						boolean term = this.settings.sigtermEvery() > 0
								&& this.workerStops % this.settings.sigtermEvery() == 0;
						slot.stopAndRestart(term);
						break;
					}
				}
				this.nextWorkerStop = elapsed + this.settings.workerStopEvery().toMillis();
			}
			long redisKillAt = this.settings.production().toMillis() * (this.redisKills + 1)
					/ (this.settings.redisKills() + 1);
			if (this.redisKills < this.settings.redisKills() && elapsed >= redisKillAt) {
				this.redisKills++;
				killRedis();
			}
			if (elapsed >= this.nextScriptFlush) {
				long start = System.currentTimeMillis();
				// what the engine runs, lost: its scripts and its Functions library
				String reply = RespClient.call(this.redis.host(), this.redis.port(), "SCRIPT", "FLUSH") + " "
						+ RespClient.call(this.redis.host(), this.redis.port(), "FUNCTION", "FLUSH");
				this.faults.add(new Fault(TrialEvents.SCRIPT_FLUSH, start, System.currentTimeMillis(), reply));
				this.nextScriptFlush = elapsed + this.settings.scriptFlushEvery().toMillis();
			}
			if (elapsed >= this.nextClientKill) {
				long start = System.currentTimeMillis();
				// the connection that sends it is skipped (SKIPME yes is the default)
				String killed = RespClient.call(this.redis.host(), this.redis.port(), "CLIENT", "KILL", "TYPE",
						"normal");
				this.faults.add(new Fault(TrialEvents.CLIENT_KILL, start, System.currentTimeMillis(),
						killed + " connections"));
				this.nextClientKill = elapsed + this.settings.clientKillEvery().toMillis();
			}
		}
		catch (IOException | RuntimeException ex) {
			this.failure.compareAndSet(null, ex);
			this.log.accept("crash trial: fault injection failed: " + ex);
			throw new IllegalStateException(ex); // ends the schedule
		}
	}

	private void killRedis() {
		long start = System.currentTimeMillis();
		long pid = this.redis.pid();
		this.redis.kill();
		long killed = System.currentTimeMillis();
		this.redis.start();
		long end = System.currentTimeMillis();
		this.faults.add(new Fault(TrialEvents.REDIS_KILL, start, end,
				"pid " + pid + " killed in " + (killed - start) + " ms, pid " + this.redis.pid() + " answered after "
						+ (end - killed) + " ms"));
		this.log.accept("crash trial: redis SIGKILLed and restarted in " + (end - start) + " ms");
	}

	private Set<String> held(String identity) {
		// the queue's key layout: every key shares the hash tag {prefix:queue}
		String tag = "{" + this.queues.getSettings().keyPrefix() + ":" + this.settings.queue() + "}:";
		Set<String> held = new HashSet<>();
		for (String id : this.observer.opsForZSet().range(tag + "inflight", 0, -1)) {
			this.admin.job(this.settings.queue(), id)
				.filter((job) -> identity.equals(job.worker()))
				.ifPresent((job) -> held.add(id));
		}
		return held;
	}

	private static String rootCause(Throwable ex) {
		Throwable cause = ex;
		for (int depth = 0; cause.getCause() != null && depth < 10; depth++) {
			cause = cause.getCause();
		}
		return (cause == ex) ? ex.toString() : ex.getClass().getSimpleName() + ": " + cause;
	}

	private static Thread daemon(Runnable runnable, String name) {
		Thread thread = new Thread(runnable, name);
		thread.setDaemon(true);
		return thread;
	}

	/**
	 * One worker identity: the process running it now, and its restarts. A restart runs on a
	 * thread of its own, so that the faults keep their pace however slowly a JVM starts.
	 */
	private final class WorkerSlot {

		private final int index;

		private final String workerId;

		private int number;

		private volatile @Nullable Process process;

		private @Nullable Incarnation current;

		private CompletableFuture<Void> starting = CompletableFuture.completedFuture(null);

		WorkerSlot(int index) {
			this.index = index;
			this.workerId = "crash-worker-" + index;
		}

		String leaseIdentity() {
			return this.workerId + "#" + CrashWorkerMain.CONTAINER_ID;
		}

		synchronized boolean isRunning() {
			return this.process != null && this.starting.isDone();
		}

		synchronized void startAsync() {
			this.starting = CompletableFuture.runAsync(this::start, CrashTrial.this.starter);
			this.starting.exceptionally((ex) -> {
				CrashTrial.this.failure.compareAndSet(null, ex);
				return null;
			});
		}

		/** Wait for the start under way, if any; a start that failed throws. */
		void awaitStarted() {
			CompletableFuture<Void> start;
			synchronized (this) {
				start = this.starting;
			}
			try {
				start.get(WORKER_START_TIMEOUT.toMillis() * (WORKER_START_TRIES + 1), TimeUnit.MILLISECONDS);
			}
			catch (ExecutionException ex) {
				throw new IllegalStateException("worker " + this.index + " did not start", ex.getCause());
			}
			catch (TimeoutException ex) {
				throw new IllegalStateException("worker " + this.index + " did not start in time", ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("interrupted", ex);
			}
		}

		private void start() {
			IllegalStateException failed = null;
			for (int tries = 0; tries < WORKER_START_TRIES; tries++) {
				try {
					startOnce();
					return;
				}
				catch (IllegalStateException ex) {
					failed = (failed == null) ? ex : failed;
					this.log("did not start: " + ex.getMessage());
				}
			}
			throw failed;
		}

		private void startOnce() {
			int number;
			synchronized (this) {
				number = ++this.number;
			}
			Path journal = CrashTrial.this.dir.resolve("worker-" + this.index + "-" + number + ".journal");
			Path logFile = CrashTrial.this.dir.resolve("worker-" + this.index + "-" + number + ".log");
			Settings s = CrashTrial.this.settings;
			List<String> command = CrashTrial.this.workerCommand.command(List.of(
					"-Dcrash.host=" + CrashTrial.this.redis.host(), "-Dcrash.port=" + CrashTrial.this.redis.port(),
					"-Dcrash.queue=" + s.queue(), "-Dcrash.worker-id=" + this.workerId, "-Dcrash.journal=" + journal,
					"-Dcrash.concurrency=" + s.concurrency(), "-Dcrash.prefetch=" + s.prefetch(),
					"-Dcrash.lease=" + s.lease(), "-Dcrash.fsync=" + s.fsync(),
					"-Dcrash.parent-pid=" + ProcessHandle.current().pid()));
			long start = System.currentTimeMillis();
			Process started;
			try {
				started = new ProcessBuilder(command).redirectErrorStream(true).start();
			}
			catch (IOException ex) {
				throw new IllegalStateException("cannot run " + command.get(0) + ": " + ex.getMessage(), ex);
			}
			Incarnation incarnation = new Incarnation(this.index, number, started.pid(), journal, logFile, start);
			// recorded at once: a process that dies while it starts may have run jobs already
			CrashTrial.this.incarnations.add(incarnation);
			synchronized (this) {
				this.process = started;
				this.current = incarnation;
			}
			CompletableFuture<Void> ready = new CompletableFuture<>();
			Thread pump = daemon(() -> pump(started, logFile, ready), "crash-worker-" + this.index + "-output");
			pump.start();
			try {
				ready.get(WORKER_START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (TimeoutException | ExecutionException ex) {
				if (ex instanceof TimeoutException) {
					// killed by the trial: what it held is accounted for like any other SIGKILL
					long at = System.currentTimeMillis();
					started.destroyForcibly();
					waitFor(started, Duration.ofSeconds(10));
					Set<String> held = held(leaseIdentity());
					CrashTrial.this.stops.add(new WorkerStop(this.index, number, started.pid(), "KILL", at,
							System.currentTimeMillis(), held));
					CrashTrial.this.faults.add(new Fault(TrialEvents.WORKER_KILL, at, System.currentTimeMillis(),
							"worker " + this.index + " pid " + started.pid() + " did not start in time, "
									+ held.size() + " jobs in flight under its lease"));
				}
				waitFor(started, Duration.ofSeconds(10));
				throw new IllegalStateException("worker " + this.index + " (pid " + started.pid() + ") "
						+ ((ex instanceof TimeoutException) ? "did not start within " + WORKER_START_TIMEOUT
								: "exited before it started")
						+ "; log " + logFile + ":\n" + tail(logFile));
			}
			catch (InterruptedException ex) {
				started.destroyForcibly();
				Thread.currentThread().interrupt();
				throw new IllegalStateException("interrupted", ex);
			}
			log("started (pid " + started.pid() + ") in " + (System.currentTimeMillis() - start) + " ms");
		}

		private void pump(Process process, Path logFile, CompletableFuture<Void> ready) {
			try (BufferedReader in = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
					Writer out = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8)) {
				for (String line = in.readLine(); line != null; line = in.readLine()) {
					out.write(line);
					out.write('\n');
					out.flush();
					if (line.startsWith(CrashWorkerMain.STARTED)) {
						ready.complete(null);
					}
				}
			}
			catch (IOException ex) {
				// the process is gone
			}
			ready.completeExceptionally(new IllegalStateException("exited"));
		}

		/**
		 * Stop the running worker (SIGKILL, or SIGTERM), record what Redis still had in flight
		 * under its lease identity, and start it again with the same worker id.
		 */
		synchronized void stopAndRestart(boolean term) {
			Process process = this.process;
			Incarnation incarnation = this.current;
			if (process == null || incarnation == null) {
				return;
			}
			long at = System.currentTimeMillis();
			String signal = term ? "TERM" : "KILL";
			if (term) {
				process.destroy();
				if (!waitFor(process, Duration.ofSeconds(30))) {
					log("did not stop within 30 s of SIGTERM: SIGKILL");
					signal = "KILL";
					process.destroyForcibly();
				}
			}
			else {
				process.destroyForcibly();
			}
			if (!waitFor(process, Duration.ofSeconds(10))) {
				throw new IllegalStateException("worker " + this.index + " (pid " + process.pid() + ") survived SIGKILL");
			}
			long exited = System.currentTimeMillis();
			// nothing takes these leases back before the restart below: they run for the lease time
			// and this thread is the only one that kills or restarts anything
			Set<String> held = held(leaseIdentity());
			CrashTrial.this.stops.add(new WorkerStop(this.index, incarnation.number(), process.pid(), signal, at,
					exited, held));
			CrashTrial.this.faults.add(new Fault("KILL".equals(signal) ? TrialEvents.WORKER_KILL : TrialEvents.WORKER_TERM,
					at, exited, "worker " + this.index + " pid " + process.pid() + " (exit " + process.exitValue()
							+ "), " + held.size() + " jobs in flight under its lease"));
			log("SIG" + signal + " (pid " + process.pid() + "), " + held.size() + " jobs in flight under its lease");
			this.process = null;
			startAsync();
		}

		/** Send SIGTERM at the end of the trial. */
		synchronized void terminate() {
			if (this.process != null) {
				this.process.destroy();
			}
		}

		/** Wait for the end of a graceful stop (SIGKILL after 30 s). */
		synchronized void stopAtEnd() {
			Process process = this.process;
			if (process == null) {
				return;
			}
			if (!waitFor(process, Duration.ofSeconds(30))) {
				process.destroyForcibly();
				waitFor(process, Duration.ofSeconds(10));
			}
			this.process = null;
		}

		synchronized void kill() {
			Process process = this.process;
			if (process != null) {
				process.destroyForcibly();
				waitFor(process, Duration.ofSeconds(10));
			}
		}

		private void log(String message) {
			CrashTrial.this.log.accept("crash trial: worker " + this.index + " " + message);
		}

	}

	private static boolean waitFor(Process process, Duration timeout) {
		try {
			return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return !process.isAlive();
		}
	}

	private static String tail(Path file) {
		try {
			List<String> lines = Files.exists(file) ? Files.readAllLines(file) : List.of();
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
