package io.github.redisqueue.listener.fetch;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.stream.IntStream;

import io.github.redisqueue.core.EnqueueResult;
import io.github.redisqueue.core.JobRecords;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.listener.ack.AckBatcher;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.RedisClock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.core.task.SimpleAsyncTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fetch loop on a real Redis, on an executor with a thread per job (as with virtual
 * threads): it never runs more handlers than its concurrency, and its drain gives back the jobs
 * that waited without counting them and the jobs that outlast the timeout as lost.
 */
class FetchLoopIntegrationTests extends AbstractRedisIntegrationTests {

	private static final String QUEUE = "fetched";

	private QueueTemplate queues;

	// counts and jobs
	private QueueAdminOperations admin;

	private AckBatcher acks;

	// the loop under test, for handlers that look at it
	private volatile FetchLoop loop;

	@BeforeEach
	void createParts() {
		this.queues = new QueueTemplate(this.connectionFactory);
		this.admin = new QueueAdmin(this.queues);
		this.acks = new AckBatcher(this.queues, QUEUE);
	}

	@AfterEach
	void closeParts() {
		this.acks.close();
	}

	@Test
	void neverRunsMoreHandlersThanItsConcurrencyOnAThreadPerJobExecutor() {
		AtomicInteger running = new AtomicInteger();
		AtomicInteger peak = new AtomicInteger();
		AtomicInteger heldPeak = new AtomicInteger();
		FetchLoop loop = start(2, 4, (job) -> {
			peak.accumulateAndGet(running.incrementAndGet(), Math::max);
			heldPeak.accumulateAndGet(this.loop.runningJobs().size(), Math::max);
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
			running.decrementAndGet();
			this.acks.complete(job.job().ref());
		});
		this.queues.enqueueAll(QUEUE, IntStream.range(0, 30).boxed().toList(), JobOptions.defaults());
		try {
			await().atMost(Duration.ofSeconds(20)).until(() -> this.admin.counts(QUEUE).total("completed") == 30);
		}
		finally {
			loop.drain(Duration.ofSeconds(5));
		}

		assertThat(peak.get()).as("handlers at once").isLessThanOrEqualTo(2);
		assertThat(heldPeak.get()).as("jobs held at once (reserved ahead and waiting)").isGreaterThan(2);
	}

	@Test
	void drainGivesBackAWaitingJobUncountedAndARunningOneAsLost() throws Exception {
		Set<String> ran = ConcurrentHashMap.newKeySet();
		CountDownLatch started = new CountDownLatch(1);
		AtomicBoolean interrupted = new AtomicBoolean();
		FetchLoop loop = start(1, 1, (job) -> {
			ran.add(job.job().id());
			started.countDown();
			try {
				new CountDownLatch(1).await(); // runs until interrupted
			}
			catch (InterruptedException ex) {
				interrupted.set(true);
			}
		});
		JobOptions once = JobOptions.builder().maxAttempts(1).build();
		String running = this.queues.enqueue(QUEUE, "running", once).id();
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
		// reserved ahead: it waits for the only handler slot
		String waiting = this.queues.enqueue(QUEUE, "waiting", once).id();
		await().atMost(Duration.ofSeconds(30)).until(() -> loop.runningJobs().size() == 2);

		loop.drain(Duration.ofMillis(200));

		// drain interrupts the handler and returns: the handler's thread sees the interrupt on its
		// own time, and its job leaves the held ones once the handler returned
		await().atMost(Duration.ofSeconds(30)).until(() -> loop.runningJobs().isEmpty());
		assertThat(interrupted).isTrue();
		assertThat(ran).containsExactly(running);
		assertThat(state(waiting)).as("given back counting nothing").contains(JobState.READY);
		assertThat(this.admin.job(QUEUE, waiting).orElseThrow()).satisfies((info) -> {
			assertThat(info.attempts()).isZero();
			assertThat(info.lastError()).as("no loss recorded").isNull();
		});
		assertThat(state(running)).as("lost once, at max attempts 1").contains(JobState.DEAD);
		assertThat(this.admin.job(QUEUE, running).orElseThrow().lastError()).contains("without an outcome");
		assertThat(this.admin.counts(QUEUE).total("reaped")).as("jobs taken back as lost").isEqualTo(1);
	}

	@Test
	void aFinishedJobIsAcknowledgedWhileTheLoopIsHeldUpWithoutAReserve() throws Exception {
		CountDownLatch handOff = new CountDownLatch(1);
		AtomicInteger dispatched = new AtomicInteger();
		SimpleAsyncTaskExecutor threads = new SimpleAsyncTaskExecutor("fetch-test-job-");
		// the loop's hand-off of the second job is held up (a busy executor), so it reserves nothing
		// more: no reserve carries the first job's acknowledgement meanwhile
		Executor executor = (task) -> {
			if (dispatched.incrementAndGet() == 2) {
				try {
					handOff.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			threads.execute(task);
		};
		String first = this.queues.enqueue(QUEUE, "first", JobOptions.defaults()).id();
		this.queues.enqueue(QUEUE, "second", JobOptions.defaults());
		FetchLoop loop = start(2, 0, executor, (job) -> this.acks.complete(job.job().ref()));
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> dispatched.get() == 2);
			await().atMost(Duration.ofSeconds(10)).until(() -> state(first).isEmpty());
			assertThat(handOff.getCount()).as("the loop is still held up").isOne();
			assertThat(this.admin.counts(QUEUE).total("completed")).isOne();
		}
		finally {
			handOff.countDown();
		}
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> this.admin.counts(QUEUE).total("completed") == 2);
		}
		finally {
			loop.drain(Duration.ofSeconds(5));
		}
	}

	@Test
	void anUnsetPrefetchGrowsForFastHandlers() {
		AtomicInteger heldPeak = new AtomicInteger();
		AtomicInteger prefetchPeak = new AtomicInteger();
		FetchLoop loop = start(2, null, (job) -> {
			heldPeak.accumulateAndGet(this.loop.runningJobs().size(), Math::max);
			prefetchPeak.accumulateAndGet(this.loop.prefetch(), Math::max);
			this.acks.complete(job.job().ref());
		});
		this.queues.enqueueAll(QUEUE, IntStream.range(0, 3000).boxed().toList(), JobOptions.defaults());
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> this.admin.counts(QUEUE).total("completed") == 3000);
		}
		finally {
			loop.drain(Duration.ofSeconds(5));
		}

		// it starts at the concurrency (2) and grows up to 16 per thread; how many jobs a handler sees
		// held depends on how fast the executor starts threads, so only the ceiling is checked there
		assertThat(prefetchPeak.get()).as("the prefetch it grew to").isGreaterThan(2).isLessThanOrEqualTo(32);
		assertThat(heldPeak.get()).as("jobs held at once").isLessThanOrEqualTo(2 + 32);
	}

	@Test
	void anUnsetPrefetchStaysAtTheConcurrencyForSlowHandlers() {
		AtomicInteger heldPeak = new AtomicInteger();
		FetchLoop loop = start(2, null, (job) -> {
			heldPeak.accumulateAndGet(this.loop.runningJobs().size(), Math::max);
			// far longer than a reserve round trip, even on a loaded machine (it would grow only for
			// round trips above 250 ms on average): reserving more ahead would only make jobs wait here
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
			this.acks.complete(job.job().ref());
		});
		this.queues.enqueueAll(QUEUE, IntStream.range(0, 10).boxed().toList(), JobOptions.defaults());
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> this.admin.counts(QUEUE).total("completed") == 10);
		}
		finally {
			loop.drain(Duration.ofSeconds(5));
		}

		assertThat(heldPeak.get()).as("jobs held at once: at most concurrency + prefetch of the concurrency")
			.isLessThanOrEqualTo(4);
		assertThat(loop.prefetch()).as("the prefetch it kept").isEqualTo(2);
	}

	// a reserve that its own bounds cut short is followed by another at once, not by a wait
	@Test
	void aReserveCutShortByItsOwnBoundsIsFollowedByAnotherAtOnce() {
		// a reserve dead-letters at most 10 expired jobs per call: these take six calls
		java.util.List<io.github.redisqueue.core.EnqueueResult> expiring = this.queues.enqueueAll(QUEUE,
				IntStream.range(0, 60).boxed().toList(), JobOptions.builder().expireAfter(Duration.ofMillis(200)).build());
		RedisClock.awaitPast(this.redis,
				this.admin.job(QUEUE, expiring.get(59).id()).orElseThrow().expireAt());
		String due = this.queues.enqueue(QUEUE, "due", JobOptions.defaults()).id();
		// no wake-up waits: a loop that waited would wait for its poll interval (30 s), and then its
		// quiet wait would not reserve before half its lease (5 minutes)
		this.redis.delete(this.redis.keys("*" + QUEUE + "*wake"));
		Set<String> ran = ConcurrentHashMap.newKeySet();
		FetchLoop loop = start(1, 1, Duration.ofSeconds(30), (job) -> {
			ran.add(job.job().id());
			this.acks.complete(job.job().ref());
		});
		try {
			await().atMost(Duration.ofSeconds(20)).until(() -> ran.contains(due));
		}
		finally {
			loop.drain(Duration.ofSeconds(5));
		}

		assertThat(this.admin.counts(QUEUE).total("expired")).isEqualTo(60);
	}

	@Test
	void aReserveThatReclaimedAsManyLeasesAsItMayIsFollowedByAnotherAtOnce() {
		// a reserve takes back at most 5 expired leases per call
		this.queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().reclaimBatch(5).build());
		// 20 jobs of a worker that is gone, whose leases run out once the loop waits
		List<String> lost = this.queues.enqueueAll(QUEUE, IntStream.range(0, 20).boxed().toList(), JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();
		assertThat(this.queues.reserve(QUEUE, 20, Duration.ofSeconds(2))).hasSize(20);
		this.redis.delete(this.redis.keys("*" + QUEUE + "*wake"));
		Set<String> ran = ConcurrentHashMap.newKeySet();
		// jobs that outlast the linger, none held in line (a loop refills when half its prefetch is
		// free): the loop does not wait for them to end before it waits
		FetchLoop loop = start(10, 0, Duration.ofSeconds(30), (job) -> {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
			ran.add(job.job().id());
			this.acks.complete(job.job().ref());
		});
		try {
			// a first job wakes the waiting loop
			String first = this.queues.enqueue(QUEUE, "first").id();
			await().atMost(Duration.ofSeconds(20)).until(() -> ran.contains(first));
			RedisClock.awaitPast(this.redis, this.admin.job(QUEUE, lost.get(19)).orElseThrow().leaseUntil());
			// the next wakes it again: its reserve takes back 5 and, having taken back as many as it
			// may, it reserves again at once until none is left, where a loop that waited would wait
			// for its poll interval (30 s) or half its lease (5 minutes)
			String trigger = this.queues.enqueue(QUEUE, "trigger").id();
			await().atMost(Duration.ofSeconds(20)).until(() -> ran.contains(trigger) && ran.containsAll(lost));
		}
		finally {
			loop.drain(Duration.ofSeconds(5));
		}
		assertThat(this.admin.counts(QUEUE).total("reaped")).isEqualTo(20);
	}

	@Test
	void aReserveStoppedByItsPayloadBytesSaysItWasCutShort() {
		// 4 KB each, read by the reserve (a longer payload is handed out apart, for a sixteenth)
		String large = "x".repeat(4_000);
		this.queues.enqueueAll(QUEUE, java.util.Collections.nCopies(20, large), JobOptions.defaults());

		io.github.redisqueue.core.Reservation first = this.queues.reserveBatch(QUEUE, 20, Duration.ofMinutes(1), "w");
		io.github.redisqueue.core.Reservation second = this.queues.reserveBatch(QUEUE, 1, Duration.ofMinutes(1), "w");
		io.github.redisqueue.core.Reservation last = this.queues.reserveBatch(QUEUE, 20, Duration.ofMinutes(1), "w");

		assertThat(first.jobs()).hasSizeBetween(10, 19);
		assertThat(first.cutShort()).as("64 KB per call: 20 jobs of 4 KB are more").isTrue();
		assertThat(second.jobs()).hasSize(1);
		assertThat(second.cutShort()).as("as many as asked").isFalse();
		assertThat(last.jobs()).hasSize(20 - first.jobs().size() - 1);
		assertThat(last.cutShort()).as("none left ready").isFalse();
	}

	@Test
	void jobsStartInTheOrderTheyWereReservedOnAThreadPerJobExecutor() {
		List<Integer> order = new CopyOnWriteArrayList<>();
		FetchLoop loop = start(1, 16, (job) -> {
			order.add(Integer.parseInt(new String(job.job().payload(), StandardCharsets.UTF_8)));
			this.acks.complete(job.job().ref());
		});
		// one call enqueues them all, so the loop finds a backlog and reserves most of it ahead
		List<Integer> jobs = IntStream.range(0, 60).boxed().toList();
		this.queues.enqueueAll(QUEUE, jobs, JobOptions.defaults());
		try {
			await().atMost(Duration.ofSeconds(20)).until(() -> this.admin.counts(QUEUE).total("completed") == 60);
		}
		finally {
			loop.drain(Duration.ofSeconds(5));
		}

		assertThat(order).as("start order, each job once").containsExactlyElementsOf(jobs);
	}

	@Test
	void aDrainGivesBackTheJobsInLineAtOnceWhileTheLoopWaitsForFreeSlots() throws Exception {
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		Set<String> ran = ConcurrentHashMap.newKeySet();
		// a long poll interval: the loop's wait for free slots must end with the stop, not with it
		FetchLoop loop = start(1, 8, Duration.ofSeconds(30), (job) -> {
			ran.add(job.job().id());
			running.countDown();
			try {
				finish.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.acks.complete(job.job().ref());
		});
		this.queues.enqueueAll(QUEUE, IntStream.range(0, 20).boxed().toList(), JobOptions.defaults());
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
		// one running, eight in line, no slot free: the loop waits
		await().atMost(Duration.ofSeconds(10)).until(() -> loop.runningJobs().size() == 9);
		CompletableFuture<Void> drained = CompletableFuture.runAsync(() -> loop.drain(Duration.ofSeconds(20)));
		// the eight in line are back in the queue while the running one still runs
		await().atMost(Duration.ofSeconds(10)).until(() -> this.admin.counts(QUEUE).ready() == 19);
		finish.countDown();
		drained.get(30, TimeUnit.SECONDS);

		assertThat(ran).hasSize(1);
		assertThat(this.admin.counts(QUEUE).total("completed")).isEqualTo(1);
	}

	@Test
	void aDrainRecordsTheStartsOfTheJobsNextInLineTogetherAndReservesThemInHandfuls() {
		int jobs = 2_000;
		this.queues.enqueueAll(QUEUE, IntStream.range(0, jobs).boxed().toList(), JobOptions.defaults());
		long before = scriptCalls();
		FetchLoop loop = start(8, 32, (job) -> this.acks.complete(job.job().ref()));
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> this.admin.counts(QUEUE).total("completed") == jobs);
		}
		finally {
			loop.drain(Duration.ofSeconds(5));
		}
		long calls = scriptCalls() - before;

		// each start of a job reserved ahead used to take a call of its own (with what other threads
		// started at that moment): about one call per job in all. Now one call records the starts of
		// the jobs next in line too, and the loop reserves once half the prefetch is free
		assertThat(calls).as("script calls for %d jobs", jobs).isLessThan(jobs / 2);
		assertThat(this.admin.counts(QUEUE).total("completed")).isEqualTo(jobs);
	}

	@Test
	void aStartRecordsTheStartsOfFewerThanFourJobsPerThreadNextInLine() throws Exception {
		TwoRunningTwentyInLine held = startTwoRunningTwentyInLine();
		FetchLoop loop = held.loop();
		List<String> ids = held.ids();
		JobRecords records = held.records();
		try {
			assertThat(ids.stream().filter((id) -> isStarted(records.mark(id))).count()).isEqualTo(2);
			// both threads take a job from the line: its start is recorded with those next in line
			held.firstTwoEnd().countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> held.ran().get() == 4);
			long recordedAhead = ids.stream().filter((id) -> isStarted(records.mark(id))).count() - 4;

			// more than one per thread (a call per thread's worth of jobs held a fast drain up), and
			// fewer than four per thread: those a dying worker would count as lost without running
			assertThat(recordedAhead).as("jobs in line recorded as started").isGreaterThan(2).isLessThan(4 * 2);
			assertThat(ids.stream().filter((id) -> isAheadMark(records.mark(id))).count())
				.as("jobs in line still only reserved ahead")
				.isEqualTo(22 - 4 - recordedAhead);
		}
		finally {
			held.finish().countDown();
			loop.drain(Duration.ofSeconds(5));
		}
	}

	@Test
	void aJobThatStartedAtOnceButWaitsInLineCountsAmongTheStartsRecordedAhead() throws Exception {
		// an executor whose threads come only when the test lets them (a thread slow to start)
		List<Runnable> tasks = new CopyOnWriteArrayList<>();
		AtomicInteger tasksRun = new AtomicInteger();
		CountDownLatch firstTwoEnd = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		AtomicInteger ran = new AtomicInteger();
		FetchLoop loop = start(2, 20, tasks::add,
				(job) -> awaitQuietly((ran.incrementAndGet() <= 2) ? firstTwoEnd : finish));
		JobRecords records = new JobRecords(this.redis, this.queues, QUEUE);
		try {
			// two jobs start at once, the third is reserved ahead
			this.queues.enqueueAll(QUEUE, IntStream.range(0, 3).boxed().toList(), JobOptions.defaults());
			await().atMost(Duration.ofSeconds(10)).until(() -> tasks.size() == 3);
			runLater(tasks, tasksRun, 2);
			await().atMost(Duration.ofSeconds(10)).until(() -> ran.get() == 2);
			// both end; the job reserved ahead still waits in line for a thread
			firstTwoEnd.countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> loop.runningJobs().size() == 1);

			// one handler slot free: the next reserve starts the first of these at once (its start is
			// recorded by that reserve), behind the job in line, and reserves the others ahead
			List<String> next = this.queues
				.enqueueAll(QUEUE, IntStream.range(0, 20).boxed().toList(), JobOptions.defaults())
				.stream()
				.map(EnqueueResult::id)
				.toList();
			await().atMost(Duration.ofSeconds(10)).until(() -> loop.runningJobs().size() == 21);
			assertThat(isStarted(records.mark(next.get(0)))).as("job started at once").isTrue();
			// a thread takes the job at the head of the line: its start goes with those next in line
			runLater(tasks, tasksRun, 1);
			await().atMost(Duration.ofSeconds(10)).until(() -> ran.get() == 3);

			// one handler runs; every job behind it recorded as started counts against its max
			// attempts should this worker die now, the one that started at once included
			assertThat(next.stream().filter((id) -> isStarted(records.mark(id))).count())
				.as("jobs in line recorded as started").isLessThan(4 * 2);
		}
		finally {
			firstTwoEnd.countDown();
			finish.countDown();
			runLater(tasks, tasksRun, tasks.size() - tasksRun.get());
			loop.drain(Duration.ofSeconds(10));
		}
	}

	@Test
	void aDrainGivesBackUncountedTheJobsInLineWhoseStartsWereRecordedAhead() throws Exception {
		TwoRunningTwentyInLine held = startTwoRunningTwentyInLine();
		FetchLoop loop = held.loop();
		List<String> ids = held.ids();
		JobRecords records = held.records();
		CountDownLatch finish = held.finish();
		AtomicInteger ran = held.ran();
		held.firstTwoEnd().countDown();
		await().atMost(Duration.ofSeconds(10)).until(() -> ran.get() == 4);
		// the 18 jobs in line: some recorded as started with the two that run, none taken by a thread
		List<String> inLine = loop.runningJobs()
			.stream()
			.filter((job) -> !job.hasStarted())
			.map((job) -> job.job().id())
			.toList();
		assertThat(inLine).hasSize(18);
		assertThat(inLine.stream().filter((id) -> isStarted(records.mark(id))).count()).isPositive();

		CompletableFuture<Void> drained = CompletableFuture.runAsync(() -> loop.drain(Duration.ofSeconds(20)));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> inLine.stream().allMatch((id) -> state(id).orElseThrow() == JobState.READY));
		finish.countDown();
		drained.get(30, TimeUnit.SECONDS);

		// they never ran here: no loss counted, either way
		for (String id : inLine) {
			assertThat(records.fields(id)).as("job %s", id).doesNotContainKeys("lost", "lostAhead");
		}
		assertThat(ids).containsAll(inLine);
		assertThat(ran).hasValue(4);
	}

	/** Run the next {@code count} tasks handed to the executor, each on a thread of its own. */
	private static void runLater(List<Runnable> tasks, AtomicInteger run, int count) {
		for (int i = 0; i < count; i++) {
			Thread thread = new Thread(tasks.get(run.getAndIncrement()), "fetch-test-late-job");
			thread.setDaemon(true);
			thread.start();
		}
	}

	/**
	 * Two threads, 20 reserved ahead, 30 jobs: the first reserve starts two jobs at once, which
	 * wait for {@code firstTwoEnd}, and holds 20 in line; the jobs after them wait for
	 * {@code finish}. Returns once the 22 are held.
	 */
	private TwoRunningTwentyInLine startTwoRunningTwentyInLine() {
		CountDownLatch firstTwoEnd = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		AtomicInteger ran = new AtomicInteger();
		FetchLoop loop = start(2, 20, (job) -> awaitQuietly((ran.incrementAndGet() <= 2) ? firstTwoEnd : finish));
		List<String> ids = this.queues.enqueueAll(QUEUE, IntStream.range(0, 30).boxed().toList(), JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();
		await().atMost(Duration.ofSeconds(10)).until(() -> loop.runningJobs().size() == 22);
		return new TwoRunningTwentyInLine(loop, ids, new JobRecords(this.redis, this.queues, QUEUE), firstTwoEnd, finish,
				ran);
	}

	private record TwoRunningTwentyInLine(FetchLoop loop, List<String> ids, JobRecords records,
			CountDownLatch firstTwoEnd, CountDownLatch finish, AtomicInteger ran) {
	}

	private static boolean isStarted(@Nullable String mark) {
		return mark != null && (mark.startsWith("s") || mark.startsWith("S"));
	}

	private static boolean isAheadMark(@Nullable String mark) {
		return mark != null && (mark.startsWith("a") || mark.startsWith("A"));
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private FetchLoop start(int concurrency, @Nullable Integer prefetch, Consumer<RunningJob> handler) {
		return start(concurrency, prefetch, Duration.ofMillis(100), new SimpleAsyncTaskExecutor("fetch-test-job-"),
				handler);
	}

	private FetchLoop start(int concurrency, @Nullable Integer prefetch, Executor executor,
			Consumer<RunningJob> handler) {
		return start(concurrency, prefetch, Duration.ofMillis(100), executor, handler);
	}

	/** With a poll interval of its own, and a lease of 10 minutes (a quiet wait reserves every 5). */
	private FetchLoop start(int concurrency, @Nullable Integer prefetch, Duration pollInterval,
			Consumer<RunningJob> handler) {
		return start(concurrency, prefetch, pollInterval, new SimpleAsyncTaskExecutor("fetch-test-job-"), handler);
	}

	private FetchLoop start(int concurrency, @Nullable Integer prefetch, Duration pollInterval, Executor executor,
			Consumer<RunningJob> handler) {
		ContainerOptions.Builder builder = ContainerOptions.builder()
			.concurrency(concurrency)
			.prefetch(prefetch)
			.pollInterval(pollInterval);
		if (!pollInterval.equals(Duration.ofMillis(100))) {
			builder.lease(Duration.ofMinutes(10));
		}
		ContainerOptions options = builder.build();
		FetchLoop loop = new FetchLoop(this.queues, QUEUE, "worker#fetch", options, executor, handler, this.acks);
		this.loop = loop;
		new SimpleAsyncTaskExecutor("fetch-test-loop-").execute(loop);
		return loop;
	}

	private Optional<JobState> state(String id) {
		return this.admin.job(QUEUE, id).map(JobInfo::state);
	}

}
