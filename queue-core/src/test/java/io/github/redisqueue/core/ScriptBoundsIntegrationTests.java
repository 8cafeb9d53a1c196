package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.RedisClock;
import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * No script does unbounded work (F08, N02, B12) and every accepted setting works (F07): by Redis's
 * SLOWLOG, no script call takes over 20 ms while a reserve works through 200,000 expired jobs,
 * while releaseWorker and the silent-worker pass walk 100,000 jobs in flight, while 1,000 jobs of
 * 100 KB are taken back, reaped, retried and paged, and while a registry of 50,000 workers is
 * kept and listed; reaper batches are limited to 10,000 and that limit works. A private Redis, so
 * that the big data sets touch no other test.
 */
class ScriptBoundsIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(10);

	/**
	 * Longest script call allowed, by Redis's SLOWLOG: the work of one call is sized to a few ms,
	 * so that a loaded machine that deschedules Redis in the middle of a call stays under it.
	 */
	private static final Duration SCRIPT_LIMIT = Duration.ofMillis(20);

	private RedisServerProcess server;

	@Override
	protected synchronized RedisEndpoint endpoint() {
		if (this.server == null) {
			this.server = TestRedis.startPrivate();
		}
		return this.server.endpoint();
	}

	@AfterAll
	void stopServer() {
		if (this.server != null) {
			this.server.close();
		}
	}

	// F08
	@Test
	void reserveWorksThroughTwoHundredThousandExpiredJobsWithoutBlockingOtherClients() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<EnqueueResult> enqueued = queues.enqueueAll("f08", IntStream.range(0, 200_000).boxed().toList(),
				JobOptions.builder().expireAfter(Duration.ofMillis(500)).build());
		RedisClock.awaitPast(this.redis, admin.job("f08", enqueued.get(199_999).id()).orElseThrow().expireAt());

		int calls = 0;
		queues.preloadScripts();
		try (SlowScripts slowlog = new SlowScripts(this.redis)) {
			// consumers come back: each reserve asks for one job, and goes on while the last was cut
			// short by its own bound; bounded by one call per job
			boolean cutShort = true;
			while (calls <= 200_000 && cutShort) {
				Reservation reservation = queues.reserveBatch("f08", 1, LEASE, "pod-1#mailer");
				assertThat(reservation.jobs()).isEmpty();
				cutShort = reservation.cutShort();
				calls++;
			}
			slowlog.assertScriptsWithin(SCRIPT_LIMIT);
		}

		QueueCounts counts = admin.counts("f08");
		assertThat(counts.ready()).isZero();
		assertThat(counts.dead()).isEqualTo(200_000);
		assertThat(counts.total("expired")).isEqualTo(200_000);
	}

	// F08
	@Test
	void releaseWorkerWalksAHundredThousandJobsInFlightWithoutBlockingOtherClients() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("f08r", IntStream.range(0, 100_010).boxed().toList(), JobOptions.defaults());
		for (int i = 0; i < 10; i++) {
			assertThat(queues.reserveBatch("f08r", 10_000, LEASE, "pod-1#mailer").jobs()).hasSize(10_000);
		}
		// reserved last: their lease deadlines come last in the in-flight set
		assertThat(queues.reserveBatch("f08r", 10, LEASE, "pod-0#mailer").jobs()).hasSize(10);

		int released;
		queues.preloadScripts();
		try (SlowScripts slowlog = new SlowScripts(this.redis)) {
			released = queues.releaseWorker("f08r", "pod-0#mailer");
			slowlog.assertScriptsWithin(SCRIPT_LIMIT);
		}

		assertThat(released).isEqualTo(10);
		QueueCounts counts = admin.counts("f08r");
		assertThat(counts.ready()).isEqualTo(10);
		assertThat(counts.inFlight()).isEqualTo(100_000);
	}

	// F08
	@Test
	void silentWorkerPassWalksAHundredThousandJobsInFlightWithoutBlockingOtherClients() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		admin.heartbeat(new WorkerInfo("pod-1", "h1", List.of("f08s"), 0, null, null), Duration.ofMinutes(10));
		admin.heartbeat(new WorkerInfo("pod-2", "h2", List.of("f08s"), 0, null, null), Duration.ofMillis(500));
		java.time.Instant beat = RedisClock.now(this.redis);
		queues.enqueueAll("f08s", IntStream.range(0, 100_010).boxed().toList(), JobOptions.defaults());
		for (int i = 0; i < 10; i++) {
			assertThat(queues.reserveBatch("f08s", 10_000, LEASE, "pod-1#mailer").jobs()).hasSize(10_000);
		}
		assertThat(queues.reserveBatch("f08s", 10, LEASE, "pod-2#mailer").jobs()).hasSize(10);
		// pod-2 stops heartbeating
		RedisClock.awaitPast(this.redis, beat.plusMillis(500));

		int passes = 0;
		queues.preloadScripts();
		try (SlowScripts slowlog = new SlowScripts(this.redis)) {
			// the pass may walk the in-flight set in slices and go on in the next pass
			while (passes < 2000 && admin.counts("f08s").ready() < 10) {
				admin.reapOnce();
				passes++;
			}
			slowlog.assertScriptsWithin(SCRIPT_LIMIT);
		}

		QueueCounts counts = admin.counts("f08s");
		assertThat(counts.ready()).as("jobs of the silent worker, after %d passes", passes).isEqualTo(10);
		assertThat(counts.inFlight()).isEqualTo(100_000);
	}

	/** Workers written straight into the registry, as heartbeats would write them, in calls of 1,000. */
	private static final String REGISTER = """
			for i = tonumber(ARGV[1]), tonumber(ARGV[2]) do
			  local id = ARGV[3] .. i
			  redis.call('ZADD', KEYS[1], ARGV[4], id)
			  redis.call('HSET', KEYS[2], id, cmsgpack.pack({'host', 'h' .. i, 'queues', 'mail,sms', 'runningJobs', '4',
			    'startedAt', '1', 'lastSeen', '1'}))
			end
			return 0
			""";

	// the worker registry of tens of thousands of workers: heartbeats, the lists of live and
	// silent workers and the overview read it in calls of at most 100 workers (before: one call
	// walked every worker)
	@Test
	void aRegistryOfFiftyThousandWorkersIsReadAndKeptInShortCalls() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		long now = RedisClock.now(this.redis).toEpochMilli();
		org.springframework.data.redis.core.script.RedisScript<Long> register = new org.springframework.data.redis.core.script.DefaultRedisScript<>(
				REGISTER, Long.class);
		List<String> keys = List.of(QueueKeys.workersKey("rq"), QueueKeys.workerInfoKey("rq"));
		for (int from = 0; from < 25_000; from += 1000) {
			// 25,000 live for an hour, 25,000 whose heartbeat ran out a minute ago
			this.redis.execute(register, keys, String.valueOf(from), String.valueOf(from + 999), "live-",
					String.valueOf(now + 3_600_000));
			this.redis.execute(register, keys, String.valueOf(from), String.valueOf(from + 999), "gone-",
					String.valueOf(now - 60_000));
		}
		queues.preloadScripts();
		try (SlowScripts slowlog = new SlowScripts(this.redis)) {
			admin.heartbeat(new WorkerInfo("pod-1", "h1", List.of("mail"), 0, null, null), Duration.ofMinutes(10));
			List<String> silent = admin.silentWorkers();
			List<WorkerInfo> live = admin.workers();
			QueueOverview overview = admin.overview();
			slowlog.assertScriptsWithin(SCRIPT_LIMIT);

			assertThat(silent).hasSize(25_000).allMatch((id) -> id.startsWith("gone-")).doesNotHaveDuplicates();
			assertThat(live).hasSize(25_001).extracting(WorkerInfo::id).doesNotHaveDuplicates().contains("pod-1",
					"live-0", "live-24999");
			assertThat(live).filteredOn((worker) -> worker.id().equals("live-7"))
				.singleElement()
				.satisfies((worker) -> assertThat(worker.queues()).containsExactly("mail", "sms"));
			assertThat(overview.workers()).hasSize(25_001);
		}
	}

	// F08: a page of jobs builds only the jobs it lists, and reads payloads of no others
	@Test
	void theDeepestPagesOfJobsDoNotBlockOtherClients() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().partitions("f08p", 3).build());
		QueueAdmin admin = new QueueAdmin(queues);
		String payload = "x".repeat(2_000);
		for (String queue : List.of("f08j", "f08p")) {
			// plain jobs around jobs with records, so that a ready page merges both
			queues.enqueueAll(queue, IntStream.range(0, 30_000).mapToObj((i) -> payload).toList(), JobOptions.defaults());
			queues.enqueueAll(queue, IntStream.range(0, 30_000).mapToObj((i) -> payload).toList(),
					JobOptions.builder().priority(1).build());
			queues.enqueueAll(queue, IntStream.range(0, 30_000).mapToObj((i) -> payload).toList(), JobOptions.defaults());
		}

		queues.preloadScripts();
		try (SlowScripts slowlog = new SlowScripts(this.redis)) {
			for (String queue : List.of("f08j", "f08p")) {
				for (JobOrder order : JobOrder.values()) {
					assertThat(admin.jobs(queue, JobState.READY, order, QueueAdmin.MAX_JOB_PAGE_END - QueueAdmin.MAX_JOB_PAGE,
							QueueAdmin.MAX_JOB_PAGE))
						.as("%s %s", queue, order)
						.hasSize(QueueAdmin.MAX_JOB_PAGE);
				}
			}
			slowlog.assertScriptsWithin(SCRIPT_LIMIT);
		}
	}

	// N02: with 1,000 jobs of 100 KB, every call's work is bounded in bytes, not only in jobs

	@Test
	void aRestartedWorkerTakesBackAThousandLargeJobsInShortCalls() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		largeJobs(queues, "n02w", LARGE_JOBS);
		reserveAll(queues, "n02w", LARGE_JOBS, "pod-0#mailer");

		int released;
		queues.preloadScripts();
		try (SlowScripts slowlog = new SlowScripts(this.redis)) {
			released = queues.releaseWorker("n02w", "pod-0#mailer");
			slowlog.assertScriptsWithin(SCRIPT_LIMIT);
		}

		assertThat(released).isEqualTo(LARGE_JOBS);
		assertThat(new QueueAdmin(queues).counts("n02w").ready()).isEqualTo(LARGE_JOBS);
	}

	@Test
	void theReaperTakesAThousandLargeJobsFromASilentWorkerInShortCalls() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		admin.heartbeat(new WorkerInfo("pod-2", "h2", List.of("n02s"), 0, null, null), Duration.ofMillis(500));
		java.time.Instant beat = RedisClock.now(this.redis);
		largeJobs(queues, "n02s", LARGE_JOBS);
		reserveAll(queues, "n02s", LARGE_JOBS, "pod-2#mailer");
		RedisClock.awaitPast(this.redis, beat.plusMillis(500));

		queues.preloadScripts();
		try (SlowScripts slowlog = new SlowScripts(this.redis)) {
			for (int pass = 0; pass < 1000 && admin.counts("n02s").ready() < LARGE_JOBS; pass++) {
				admin.reapOnce();
			}
			slowlog.assertScriptsWithin(SCRIPT_LIMIT);
		}

		assertThat(admin.counts("n02s").ready()).isEqualTo(LARGE_JOBS);
	}

	@Test
	void retryAllDeadRetriesAThousandLargeJobsInShortCalls() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		largeJobs(queues, "n02d", LARGE_JOBS);
		deadLetterAll(queues, "n02d", LARGE_JOBS);

		long retried;
		queues.preloadScripts();
		try (SlowScripts slowlog = new SlowScripts(this.redis)) {
			retried = admin.retryAllDead("n02d");
			slowlog.assertScriptsWithin(SCRIPT_LIMIT);
		}

		assertThat(retried).isEqualTo(LARGE_JOBS);
		assertThat(admin.counts("n02d").ready()).isEqualTo(LARGE_JOBS);
	}

	@Test
	void pagesOfAThousandLargeJobsAreReadInShortCalls() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		largeJobs(queues, "n02j", LARGE_JOBS);
		largeJobs(queues, "n02a", LARGE_JOBS);
		reserveAll(queues, "n02a", LARGE_JOBS, "pod-1#mailer");

		queues.preloadScripts();
		try (SlowScripts slowlog = new SlowScripts(this.redis)) {
			List<JobInfo> ready = admin.jobs("n02j", JobState.READY, JobOrder.OLDEST_FIRST, 500, QueueAdmin.MAX_JOB_PAGE);
			List<JobInfo> active = admin.jobs("n02a", JobState.ACTIVE, JobOrder.NEWEST_FIRST, 500,
					QueueAdmin.MAX_JOB_PAGE);
			slowlog.assertScriptsWithin(SCRIPT_LIMIT);
			assertThat(ready).hasSize(QueueAdmin.MAX_JOB_PAGE)
				.allSatisfy((job) -> assertThat(job.payload()).hasSizeGreaterThan(LARGE_PAYLOAD.length()));
			assertThat(active).hasSize(QueueAdmin.MAX_JOB_PAGE)
				.allSatisfy((job) -> assertThat(job.payload()).hasSizeGreaterThan(LARGE_PAYLOAD.length()));
		}
	}

	// N02, B12, S7: dead-letter pages read only the page's jobs, in calls bounded in bytes
	@Test
	void deadLetterPagesOfAThousandLargeJobsAreReadInShortCalls() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().partitions("n02p", 2).build());
		QueueAdmin admin = new QueueAdmin(queues);
		for (String queue : List.of("n02p", "n02o")) {
			largeJobs(queues, queue, LARGE_JOBS);
			deadLetterAll(queues, queue, LARGE_JOBS);
		}

		queues.preloadScripts();
		try (SlowScripts slowlog = new SlowScripts(this.redis)) {
			List<DeadJob> deepest = admin.deadLetters("n02p", LARGE_JOBS - 100, 100);
			List<DeadJob> whole = admin.deadLetters("n02o", 0, LARGE_JOBS);
			slowlog.assertScriptsWithin(SCRIPT_LIMIT);
			assertThat(deepest).hasSize(100)
				.allSatisfy((job) -> assertThat(job.payload()).hasSizeGreaterThan(LARGE_PAYLOAD.length()));
			assertThat(deepest).extracting(DeadJob::diedAt).isSortedAccordingTo(java.util.Comparator.reverseOrder());
			assertThat(whole).hasSize(LARGE_JOBS)
				.allSatisfy((job) -> assertThat(job.payload()).hasSizeGreaterThan(LARGE_PAYLOAD.length()));
		}
	}

	// N02: the completion payloads of finished batches are handed off in calls bounded in bytes
	@Test
	void completionJobsOfAHundredBatchesWithLargePayloadsAreHandedOffInShortCalls() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> batches = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			batches.add(queues.batch("n02b").onComplete("n02b-done", LARGE_PAYLOAD).addAll(List.of(i)).submit().id());
		}
		for (ReservedJob job : reserveAll(queues, "n02b", 100, "pod-1#mailer")) {
			queues.complete("n02b", job.ref());
		}
		assertThat(admin.counts("n02b-done").ready()).isEqualTo(100);
		// as if every hand-off had stopped between enqueueing its completion job and leaving the
		// hand-off set: the next forward reads all their completion payloads again
		batches.forEach((id) -> this.redis.opsForZSet().add("{rq:n02b}:batches:done", id, 1));

		int handed;
		queues.preloadScripts();
		try (SlowScripts slowlog = new SlowScripts(this.redis)) {
			handed = queues.forwardBatchCompletions("n02b");
			slowlog.assertScriptsWithin(SCRIPT_LIMIT);
		}

		assertThat(handed).isEqualTo(100);
		assertThat(this.redis.opsForZSet().size("{rq:n02b}:batches:done")).isZero();
		assertThat(admin.counts("n02b-done").ready()).as("no second completion job").isEqualTo(100);
	}

	private static final int LARGE_JOBS = 1000;

	private static final String LARGE_PAYLOAD = "x".repeat(100_000);

	private static void largeJobs(QueueTemplate queues, String queue, int count) {
		for (int i = 0; i < count; i += 50) {
			queues.enqueueAll(queue, IntStream.range(0, 50).mapToObj((n) -> LARGE_PAYLOAD).toList(),
					JobOptions.defaults());
		}
	}

	private static List<ReservedJob> reserveAll(QueueTemplate queues, String queue, int count, String worker) {
		List<ReservedJob> all = new ArrayList<>();
		for (int call = 0; call < 10 * count && all.size() < count; call++) {
			all.addAll(queues.reserveBatch(queue, Math.min(100, count - all.size()), LEASE, worker).jobs());
		}
		assertThat(all).hasSize(count);
		return all;
	}

	private static void deadLetterAll(QueueTemplate queues, String queue, int count) {
		for (ReservedJob job : reserveAll(queues, queue, count, "pod-1#mailer")) {
			queues.deadLetter(queue, job.ref(), "failed");
		}
	}

	// F07
	@Test
	void reaperAndReclaimBatchesAboveTenThousandAreRefusedWithTheAllowedRange() {
		assertThatIllegalArgumentException().isThrownBy(() -> QueueSettings.builder().reapBatch(10_001).build())
			.satisfies((ex) -> assertThat(ex.getMessage()).containsAnyOf("10001", "10,001")
				.containsAnyOf("10000", "10,000"));
		assertThatIllegalArgumentException().isThrownBy(() -> QueueSettings.builder().reclaimBatch(10_001).build())
			.satisfies((ex) -> assertThat(ex.getMessage()).containsAnyOf("10001", "10,001")
				.containsAnyOf("10000", "10,000"));
		assertThat(QueueSettings.builder().reapBatch(10_000).reclaimBatch(10_000).build().reapBatch())
			.isEqualTo(10_000);
	}

	// F07
	@Test
	void reserveWithAReapBatchOfTenThousandPromotesNineThousandDueJobs() {
		QueueTemplate queues = bigBatches(Duration.ZERO);
		QueueAdmin admin = new QueueAdmin(queues);
		String last = delayedJobs(queues, "f07", 9_000);

		assertThat(queues.reserve("f07", 1, LEASE)).hasSize(1);

		// a reserve of one job promotes 25 due jobs per call; the reaper does the bulk
		for (int pass = 0; pass < 400 && admin.counts("f07").delayed() > 0; pass++) {
			queues.reserve("f07", 1, LEASE);
		}
		QueueCounts counts = admin.counts("f07");
		assertThat(counts.delayed()).isZero();
		assertThat(counts.ready() + counts.inFlight()).isEqualTo(9_000);
		assertThat(admin.job("f07", last).orElseThrow().state()).isIn(JobState.READY, JobState.ACTIVE);
	}

	// F07
	@Test
	void reaperWithAReapBatchOfTenThousandPromotesNineThousandDueJobs() {
		QueueTemplate queues = bigBatches(Duration.ZERO);
		QueueAdmin admin = new QueueAdmin(queues);
		delayedJobs(queues, "f07", 9_000);

		long promoted = 0;
		// a reserve of one job promotes 25 due jobs per call; the reaper does the bulk
		for (int pass = 0; pass < 400 && admin.counts("f07").delayed() > 0; pass++) {
			promoted += admin.reapOnce("f07").promoted();
		}

		assertThat(promoted).isEqualTo(9_000);
		assertThat(admin.counts("f07").ready()).isEqualTo(9_000);
	}

	// F07: the purge step has the same limit
	@Test
	void reaperWithAReapBatchOfTenThousandPurgesNineThousandRetainedCompletedJobs() {
		QueueTemplate queues = bigBatches(Duration.ofMillis(200));
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("f07", IntStream.range(0, 9_000).boxed().toList(), JobOptions.defaults());
		List<JobRef> refs = queues.reserve("f07", 9_000, LEASE).stream().map(ReservedJob::ref).toList();
		assertThat(queues.completeAll("f07", refs)).containsOnly(AckResult.OK);
		assertThat(admin.counts("f07").completed()).isEqualTo(9_000);
		RedisClock.awaitElapsed(this.redis, Duration.ofMillis(200));

		long purged = 0;
		for (int pass = 0; pass < 20 && admin.counts("f07").completed() > 0; pass++) {
			purged += admin.reapOnce("f07").purgedCompleted();
		}

		assertThat(purged).isEqualTo(9_000);
		assertThat(admin.job("f07", refs.get(0).id())).isEmpty();
	}

	private QueueTemplate bigBatches(Duration completedRetention) {
		return new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(), QueueSettings.builder()
			.reapBatch(10_000)
			.reclaimBatch(10_000)
			.completedRetention(completedRetention)
			.build());
	}

	/** Enqueues delayed jobs and waits until all are due by the Redis clock; returns the last id. */
	private String delayedJobs(QueueTemplate queues, String queue, int count) {
		QueueAdmin admin = new QueueAdmin(queues);
		List<EnqueueResult> enqueued = queues.enqueueAll(queue, IntStream.range(0, count).boxed().toList(),
				JobOptions.builder().delay(Duration.ofMillis(300)).build());
		String last = enqueued.get(count - 1).id();
		assertThat(admin.counts(queue).delayed()).isEqualTo(count);
		RedisClock.awaitPast(this.redis, admin.job(queue, last).orElseThrow().dueAt());
		return last;
	}

	/**
	 * Redis's own account of script calls: while open, SLOWLOG records every command over 1 ms
	 * (server-side time, in µs); {@link #assertScriptsWithin} prints, per script, how many calls
	 * took over 1 ms and the longest, and checks that no script call (EVAL, EVALSHA) took longer
	 * than the bound. Client-side round trips are not measured: a loaded
	 * machine inflates them whatever the scripts do.
	 */
	static final class SlowScripts implements AutoCloseable {

		private final StringRedisTemplate redis;

		private final java.util.Map<String, String> names = new java.util.HashMap<>();

		private final java.util.Map<String, Long> longestMicros = new java.util.HashMap<>();

		private final java.util.Map<String, String> longestArgs = new java.util.HashMap<>();

		private final String caller = StackWalker.getInstance()
			.walk((frames) -> frames.skip(1).findFirst().map(StackWalker.StackFrame::getMethodName).orElse(""));

		SlowScripts(StringRedisTemplate redis) {
			this.redis = redis;
			QueueScripts scripts = new QueueScripts();
			java.util.Map<String, org.springframework.data.redis.core.script.RedisScript<?>> all = java.util.Map.of(
					"reserve", scripts.reserve(), "release", scripts.release(), "reap", scripts.reap(), "dead",
					scripts.dead(), "inspect", scripts.inspect(), "jobs", scripts.jobs(), "batch", scripts.batch(),
					"enqueue", scripts.enqueue(), "fail", scripts.fail(), "migrate", scripts.migrate());
			all.forEach((name, script) -> this.names.put(script.getSha1(), name));
			java.util.Map.of("heartbeat", scripts.heartbeat(), "workers", scripts.workers(), "silent", scripts.silent())
				.forEach((name, script) -> this.names.put(script.getSha1(), name));
			command("CONFIG", "SET", "slowlog-log-slower-than", "1000");
			command("CONFIG", "SET", "slowlog-max-len", "100000");
			command("SLOWLOG", "RESET");
			command("CONFIG", "RESETSTAT");
			this.cpuBefore = mainThreadCpuMicros();
		}

		private final long cpuBefore;

		private String info(String section) {
			Object reply = command("INFO", section);
			return (reply instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(reply);
		}

		/** CPU time of Redis's main thread (µs): the work of its commands, whatever the scheduler did. */
		private long mainThreadCpuMicros() {
			double seconds = 0;
			for (String line : info("cpu").split("\r?\n")) {
				if (line.startsWith("used_cpu_sys_main_thread:") || line.startsWith("used_cpu_user_main_thread:")) {
					seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
				}
			}
			return (long) (seconds * 1_000_000);
		}

		/** Script calls since the start, by commandstats. */
		private long scriptCalls() {
			long calls = 0;
			for (String line : info("commandstats").split("\r?\n")) {
				if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")
						|| line.startsWith("cmdstat_fcall:")) {
					calls += Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*$", "$1").trim());
				}
			}
			return calls;
		}

		/** Script calls, their mean time (µs, by commandstats) and the main thread's CPU per call. */
		private String averages() {
			long calls = 0;
			long usec = 0;
			for (String line : info("commandstats").split("\r?\n")) {
				if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")
						|| line.startsWith("cmdstat_fcall:")) {
					for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
						if (field.startsWith("calls=")) {
							calls += Long.parseLong(field.substring(6));
						}
						else if (field.startsWith("usec=")) {
							usec += Long.parseLong(field.substring(5));
						}
					}
				}
			}
			long cpu = mainThreadCpuMicros() - this.cpuBefore;
			return String.format("%d script calls, mean %d µs; main-thread CPU %d µs per script call", calls,
					(calls > 0) ? usec / calls : 0, (calls > 0) ? cpu / calls : 0);
		}

		private Object command(String command, String... args) {
			byte[][] bytes = java.util.Arrays.stream(args)
				.map((arg) -> arg.getBytes(StandardCharsets.UTF_8))
				.toArray(byte[][]::new);
			return this.redis.execute((RedisCallback<Object>) (connection) -> connection.execute(command, bytes));
		}

		/** The script calls the slowlog holds, longest first, as "µs command". */
		@SuppressWarnings("unchecked")
		List<String> slowScripts() {
			Object reply = this.redis.execute((RedisCallback<Object>) (connection) -> {
				try {
					return ((RedisClusterAsyncCommands<byte[], byte[]>) connection.getNativeConnection()).slowlogGet(-1)
						.get(10, TimeUnit.SECONDS);
				}
				catch (Exception ex) {
					throw new IllegalStateException("SLOWLOG GET failed", ex);
				}
			});
			List<String> entries = new java.util.ArrayList<>();
			if (reply instanceof List<?> log) {
				for (Object entry : log) {
					if (entry instanceof List<?> fields && fields.size() > 3 && fields.get(3) instanceof List<?> argv
							&& !argv.isEmpty() && fields.get(2) instanceof Long micros
							&& text(argv.get(0)).toUpperCase(java.util.Locale.ROOT).startsWith("EVAL")) {
						String sha = (argv.size() > 1) ? text(argv.get(1)) : "";
						String name = this.names.getOrDefault(sha, "");
						entries.add(String.format("%09d %s %s", micros, text(argv.get(0)), name));
						// the arguments after the keys, as far as SLOWLOG keeps them
						if (micros > this.longestMicros.getOrDefault(name, 0L) && argv.size() > 25) {
							this.longestMicros.put(name, micros);
							this.longestArgs.put(name, argv.subList(25, argv.size())
								.stream()
								.map((arg) -> text(arg))
								.map((arg) -> (arg.length() > 20) ? arg.substring(0, 20) + "…" : arg)
								.toList()
								.toString());
						}
					}
				}
			}
			entries.sort(java.util.Comparator.reverseOrder());
			return entries;
		}

		void assertScriptsWithin(Duration limit) {
			List<String> slow = slowScripts();
			java.util.Map<String, long[]> perScript = new java.util.TreeMap<>();
			for (String entry : slow) {
				long[] figures = perScript.computeIfAbsent(entry.substring(entry.lastIndexOf(' ') + 1),
						(name) -> new long[2]);
				figures[0]++;
				figures[1] = Math.max(figures[1], Long.parseLong(entry.substring(0, 9)));
			}
			StringBuilder summary = new StringBuilder("SLOWLOG " + this.caller + ": " + averages()
					+ "; script calls over 1 ms (count, longest µs):");
			perScript.forEach((name, figures) -> summary.append(' ')
				.append(name.isEmpty() ? "?" : name)
				.append('=')
				.append(figures[0])
				.append('/')
				.append(figures[1])
				.append(' ')
				.append(this.longestArgs.getOrDefault(name, "")));
			System.out.println(summary);
			long limitMicros = limit.toNanos() / 1000;
			long longest = slow.isEmpty() ? 0 : Long.parseLong(slow.get(0).substring(0, 9));
			long next = (slow.size() < 2) ? 0 : Long.parseLong(slow.get(1).substring(0, 9));
			String why = String.format("%d over 1 ms, longest %s", slow.size(), slow.subList(0, Math.min(5, slow.size())));
			if (scriptCalls() < 100) {
				assertThat(longest).as("longest script call by SLOWLOG (µs); %s", why).isLessThanOrEqualTo(limitMicros);
				return;
			}
			// SLOWLOG times a call by the clock: among many calls, one during which the machine took
			// Redis off its core for a while reads long. Work that grows with the backlog does not
			// stop at one call: it makes every long call longer (the second longest is held to the
			// limit), and runs for seconds (the longest is allowed ten times the limit)
			assertThat(next).as("second longest script call by SLOWLOG (µs); %s", why).isLessThanOrEqualTo(limitMicros);
			assertThat(longest).as("longest script call by SLOWLOG (µs); %s", why).isLessThanOrEqualTo(10 * limitMicros);
		}

		private static String text(Object value) {
			return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
		}

		@Override
		public void close() {
			command("CONFIG", "SET", "slowlog-log-slower-than", "10000");
		}

	}

}
