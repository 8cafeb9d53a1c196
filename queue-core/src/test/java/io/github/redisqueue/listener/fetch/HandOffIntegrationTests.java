package io.github.redisqueue.listener.fetch;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.IntStream;

import io.github.redisqueue.core.EnqueueResult;
import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.ack.AckBatcher;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A job enqueued to a waiting fetch loop reaches its executor from the Redis client's I/O thread, as the reply of
 * the reserve sent behind the wait arrives, when the executor allows it (the container's own pool); from the loop's
 * thread otherwise. Each job runs once either way, and a job the executor refuses there is given back by the loop.
 */
// on a server of its own: it waits until the loop's connection is the one client blocked
@Tag("single-node")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HandOffIntegrationTests {

	// on a job's thread: the thread that gave its task to the executor
	private static final ThreadLocal<String> TASK_GIVEN_BY = new ThreadLocal<>();

	private static final String QUEUE = "handed";

	// long: a wait ends by a wake-up, not by its timeout, and every wait of a quiet loop carries a reserve
	private static final Duration POLL = Duration.ofSeconds(20);

	private RedisServerProcess server;

	private LettuceConnectionFactory factory;

	private QueueTemplate queues;

	private AckBatcher acks;

	private FetchLoop loop;

	@BeforeAll
	void startServer() {
		this.server = TestRedis.startPrivate();
		this.factory = TestRedis.connectionFactory(this.server.endpoint());
	}

	@AfterAll
	void stopServer() {
		this.factory.destroy();
		this.server.close();
	}

	@BeforeEach
	void createParts() {
		TestRedis.flushAll(this.server.endpoint());
		this.queues = new QueueTemplate(this.factory);
		this.acks = new AckBatcher(this.queues, QUEUE);
	}

	@AfterEach
	void closeParts() {
		if (this.loop != null) {
			this.loop.drain(Duration.ofSeconds(5));
		}
		this.acks.close();
	}

	@Test
	void aJobEnqueuedToAWaitingLoopReachesTheExecutorFromTheClientsThreadWhenItAllows() {
		Map<String, String> givenBy = jobsToAWaitingLoop(true, 3);

		assertThat(givenBy.values()).as("the threads that gave each job to the executor")
			.allSatisfy((thread) -> assertThat(thread).startsWith("lettuce-"));
	}

	@Test
	void aJobEnqueuedToAWaitingLoopReachesTheExecutorFromTheLoopsThreadOtherwise() {
		Map<String, String> givenBy = jobsToAWaitingLoop(false, 3);

		assertThat(givenBy.values()).as("the threads that gave each job to the executor")
			.allSatisfy((thread) -> assertThat(thread).startsWith("hand-off-test-loop-"));
	}

	@Test
	void aJobTheExecutorRefusesOnTheClientsThreadIsGivenBackByTheLoopAndTheOnesBeforeItRun() {
		List<String> askedBy = new CopyOnWriteArrayList<>();
		SimpleAsyncTaskExecutor threads = new SimpleAsyncTaskExecutor("hand-off-test-job-");
		Executor firstOnly = (task) -> {
			askedBy.add(Thread.currentThread().getName());
			if (askedBy.size() > 1) {
				throw new RejectedExecutionException("full");
			}
			threads.execute(task);
		};
		List<String> ran = new CopyOnWriteArrayList<>();
		FetchLoop loop = start(firstOnly, true, (job) -> {
			ran.add(job.job().id());
			this.acks.complete(job.job().ref());
		});
		awaitWaiting();

		List<String> ids = this.queues.enqueueAll(QUEUE, List.of("taken", "refused"), JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();

		// the loop takes the refusal as a failure to fetch: it gives the job back and tries again a poll interval later
		QueueAdmin admin = new QueueAdmin(this.queues);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> askedBy.size() >= 3 && admin.counts(QUEUE).total("completed") == 1
					&& admin.job(QUEUE, ids.get(1)).map(JobInfo::state).orElse(null) == JobState.READY);
		assertThat(askedBy).as("both asked on the client's thread, the refused one again by the loop").hasSize(3);
		assertThat(askedBy.subList(0, 2)).allSatisfy((thread) -> assertThat(thread).startsWith("lettuce-"));
		assertThat(askedBy.get(2)).startsWith("hand-off-test-loop-");
		assertThat(ran).containsExactly(ids.get(0));
		assertThat(admin.job(QUEUE, ids.get(1)).orElseThrow().attempts()).as("given back uncounted").isZero();
		await().atMost(Duration.ofSeconds(30)).until(() -> loop.runningJobs().isEmpty());
	}

	/**
	 * Start a loop, wait until it waits on Redis (its first wait carries a reserve: it holds nothing), then enqueue
	 * {@code count} jobs in one call, which the reserve behind that wait takes at once.
	 * @return by job id, the name of the thread that gave it to the executor
	 */
	private Map<String, String> jobsToAWaitingLoop(boolean handsOver, int count) {
		Map<String, String> givenBy = new ConcurrentHashMap<>();
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		SimpleAsyncTaskExecutor threads = new SimpleAsyncTaskExecutor("hand-off-test-job-");
		List<String> askedBy = new CopyOnWriteArrayList<>();
		Executor recording = (task) -> {
			String asking = Thread.currentThread().getName();
			askedBy.add(asking);
			threads.execute(() -> {
				TASK_GIVEN_BY.set(asking);
				task.run();
			});
		};
		start(recording, handsOver, (job) -> {
			runs.computeIfAbsent(job.job().id(), (id) -> new AtomicInteger()).incrementAndGet();
			givenBy.put(job.job().id(), TASK_GIVEN_BY.get());
			this.acks.complete(job.job().ref());
		});
		awaitWaiting();

		List<String> ids = this.queues.enqueueAll(QUEUE, IntStream.range(0, count).boxed().toList(), JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();

		await().atMost(Duration.ofSeconds(30))
			.until(() -> new QueueAdmin(this.queues).counts(QUEUE).total("completed") == count);
		assertThat(runs.keySet()).containsExactlyInAnyOrderElementsOf(ids);
		assertThat(runs.values()).as("runs of each job").allSatisfy((ran) -> assertThat(ran.get()).isEqualTo(1));
		assertThat(askedBy).as("tasks given to the executor: one per job").hasSize(count);
		return givenBy;
	}

	/** Wait until the loop blocks on Redis with nothing held: it is the one client blocked. */
	private void awaitWaiting() {
		await().atMost(Duration.ofSeconds(30)).until(() -> this.loop.runningJobs().isEmpty() && blockedClients() == 1);
	}

	private FetchLoop start(Executor executor, boolean handsOver, Consumer<RunningJob> handler) {
		ContainerOptions options = ContainerOptions.builder()
			.concurrency(2)
			.prefetch(2)
			.pollInterval(POLL)
			.lease(Duration.ofMinutes(10))
			.build();
		this.loop = new FetchLoop(this.queues, QUEUE, "worker#hand-off", options, executor, handler, this.acks,
				handsOver);
		new SimpleAsyncTaskExecutor("hand-off-test-loop-").execute(this.loop);
		return this.loop;
	}

	private long blockedClients() {
		try (var connection = this.factory.getConnection()) {
			return Long.parseLong(connection.serverCommands().info("clients").getProperty("blocked_clients"));
		}
	}

}
