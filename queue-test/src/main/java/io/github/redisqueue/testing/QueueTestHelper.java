package io.github.redisqueue.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.config.QueueListenerEndpointRegistry;
import io.github.redisqueue.core.DeadJob;
import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.JobOrder;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueCounts;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.QueueListenerContainer;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

import static org.awaitility.Awaitility.await;

/**
 * What a test of an application's queues needs, on the application's own {@link QueueTemplate}
 * and {@link QueueAdmin}: wait until a queue is drained, read what was enqueued without taking
 * it, run a listener for one job on the test's thread, and fail on dead letters the test did not
 * expect. {@link QueueTest @QueueTest} makes it a bean to inject; elsewhere, build it with
 * {@link #QueueTestHelper(QueueAdmin, QueueListenerEndpointRegistry)}.
 *
 * <p>One test at a time: it keeps per-test state (the dead letters expected, the listeners it
 * stopped), which {@link QueueTestExtension} resets around each test.
 *
 * @since 0.1.0
 */
public class QueueTestHelper {

	/** How long {@link #awaitDrained(String)} waits by default. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

	/** The most jobs {@link #enqueued(String)} reads per state. */
	public static final int MAX_LISTED = 1_000;

	private static final int SHOWN_DEAD_LETTERS = 5;

	private final QueueAdmin admin;

	private final QueueTemplate template;

	private final @Nullable QueueListenerEndpointRegistry registry;

	private final Set<String> expectedDeadLetters = new HashSet<>();

	private boolean anyDeadLetterExpected;

	private final Set<QueueListenerContainer> stopped = new LinkedHashSet<>();

	/**
	 * @param admin the application's admin (its template is the one the helper reads through)
	 * @param registry the registry of the application's listeners, for {@link #runOne(String)};
	 * {@code null} when it has none
	 */
	public QueueTestHelper(QueueAdmin admin, @Nullable QueueListenerEndpointRegistry registry) {
		this.admin = admin;
		this.template = admin.getTemplate();
		this.registry = registry;
	}

	/**
	 * The helper of an application context: its {@link QueueAdmin}, and its listener registry if
	 * it has one.
	 * @param context the context
	 * @return the helper
	 */
	public static QueueTestHelper of(ApplicationContext context) {
		return new QueueTestHelper(context.getBean(QueueAdmin.class),
				context.getBeanProvider(QueueListenerEndpointRegistry.class).getIfAvailable());
	}

	/**
	 * The template the helper works on.
	 * @return the template
	 */
	public QueueTemplate template() {
		return this.template;
	}

	/**
	 * The admin the helper works on.
	 * @return the admin
	 */
	public QueueAdmin admin() {
		return this.admin;
	}

	// ---- isolation

	/**
	 * Delete every key of the library under the template's key prefix ({@code <prefix>:*} and
	 * {@code {<prefix>:*}}, on every master of a cluster): every queue, job, dead letter, batch,
	 * pause, schedule mark and worker entry. Three registries stay: the names of the queues, the
	 * partition counts and the layout version ({@code <prefix>:queues}, {@code :partitions},
	 * {@code :layout}), which a template writes once and remembers having written. Keys of other
	 * prefixes and the application's own data stay. {@link QueueTestExtension} calls it before
	 * each test; listeners that run go on (their next heartbeat registers them again).
	 * @return how many keys were deleted
	 */
	public long deleteQueueKeys() {
		String prefix = this.template.getSettings().keyPrefix();
		Set<String> kept = Set.of(prefix + ":queues", prefix + ":partitions", prefix + ":layout");
		long deleted = 0;
		try (RedisConnection connection = this.template.getConnectionFactory().getConnection()) {
			for (String pattern : List.of(globEscape(prefix) + ":*", "{" + globEscape(prefix) + ":*")) {
				deleted += deleteMatching(connection, pattern, kept);
			}
		}
		return deleted;
	}

	private static long deleteMatching(RedisConnection connection, String pattern, Set<String> kept) {
		ScanOptions options = ScanOptions.scanOptions().match(pattern).count(1000).build();
		List<byte[]> keys = new ArrayList<>();
		if (connection instanceof RedisClusterConnection cluster) {
			for (RedisClusterNode node : cluster.clusterGetNodes()) {
				if (node.isMaster()) {
					try (Cursor<byte[]> cursor = cluster.scan(node, options)) {
						cursor.forEachRemaining(keys::add);
					}
				}
			}
		}
		else {
			try (Cursor<byte[]> cursor = connection.keyCommands().scan(options)) {
				cursor.forEachRemaining(keys::add);
			}
		}
		long deleted = 0;
		for (byte[] key : keys) {
			if (kept.contains(new String(key, StandardCharsets.UTF_8))) {
				continue;
			}
			Long count = connection.keyCommands().del(key);
			deleted += (count != null) ? count : 0;
		}
		return deleted;
	}

	private static String globEscape(String text) {
		StringBuilder escaped = new StringBuilder();
		for (char c : text.toCharArray()) {
			if ("*?[]\\".indexOf(c) >= 0) {
				escaped.append('\\');
			}
			escaped.append(c);
		}
		return escaped.toString();
	}

	// ---- waiting

	/**
	 * Wait at most {@link #DEFAULT_TIMEOUT} until {@code queue} is drained, see
	 * {@link #awaitDrained(String, Duration)}.
	 * @param queue the queue name
	 * @return its counts once drained
	 */
	public QueueCounts awaitDrained(String queue) {
		return awaitDrained(queue, DEFAULT_TIMEOUT);
	}

	/**
	 * Wait until {@code queue} is drained: no job ready, none in flight, and no delayed job due
	 * before the wait would end (by the Redis clock). A job delayed beyond the timeout cannot run
	 * within it and does not hold the wait; a retry due within it does.
	 * @param queue the queue name
	 * @param timeout the longest wait
	 * @return its counts once drained
	 * @throws AssertionError naming what is left when the queue is not drained in time
	 */
	public QueueCounts awaitDrained(String queue, Duration timeout) {
		Instant deadline = redisTime().plus(timeout);
		QueueCounts[] last = new QueueCounts[1];
		try {
			await().atMost(timeout).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20)).until(() -> {
				last[0] = this.admin.counts(queue);
				return isDrained(queue, last[0], deadline);
			});
			return last[0];
		}
		catch (ConditionTimeoutException ex) {
			QueueCounts counts = this.admin.counts(queue);
			throw new AssertionError("Queue '" + queue + "' not drained within " + timeout + ": " + describe(counts)
					+ nextDue(queue, counts), ex);
		}
	}

	/**
	 * Wait until every queue the application used is drained, each within {@code timeout}.
	 * @param timeout the longest wait per queue
	 */
	public void awaitAllDrained(Duration timeout) {
		for (String queue : this.admin.queues()) {
			awaitDrained(queue, timeout);
		}
	}

	private boolean isDrained(String queue, QueueCounts counts, Instant deadline) {
		if (counts.ready() > 0 || counts.inFlight() > 0) {
			return false;
		}
		if (counts.delayed() == 0) {
			return true;
		}
		Instant due = firstDue(queue);
		if (due != null && !due.isAfter(deadline)) {
			return false;
		}
		// The counts and the first due time are two reads: a job due between them may have left
		// the delayed jobs for ready or in flight. Drained only when nothing moved in between.
		return sameStates(counts, this.admin.counts(queue));
	}

	private static boolean sameStates(QueueCounts before, QueueCounts after) {
		return before.ready() == after.ready() && before.inFlight() == after.inFlight()
				&& before.delayed() == after.delayed() && before.dead() == after.dead()
				&& before.totals().equals(after.totals());
	}

	private @Nullable Instant firstDue(String queue) {
		List<JobInfo> first = this.admin.jobs(queue, JobState.DELAYED, JobOrder.OLDEST_FIRST, 0, 1);
		return first.isEmpty() ? null : first.get(0).dueAt();
	}

	private String nextDue(String queue, QueueCounts counts) {
		if (counts.delayed() == 0) {
			return "";
		}
		Instant due = firstDue(queue);
		return (due != null) ? "; next delayed job due in " + Duration.between(redisTime(), due) : "";
	}

	private static String describe(QueueCounts counts) {
		return "ready " + counts.ready() + ", in flight " + counts.inFlight() + ", delayed " + counts.delayed()
				+ ", dead " + counts.dead() + ", completed " + counts.total("completed") + " in all";
	}

	/**
	 * The Redis server clock, which decides due times and leases.
	 * @return the server time
	 */
	public Instant redisTime() {
		try (RedisConnection connection = this.template.getConnectionFactory().getConnection()) {
			Long millis = connection.serverCommands().time(TimeUnit.MILLISECONDS);
			return Instant.ofEpochMilli((millis != null) ? millis : System.currentTimeMillis());
		}
	}

	// ---- reading what was enqueued

	/**
	 * The jobs of {@code queue} that wait to run, ready ones first in the order they will be handed
	 * out, then delayed ones by due time (at most {@link #MAX_LISTED} of each); nothing is taken.
	 * Jobs waiting at their batch or group for a place are not listed. While a listener consumes
	 * the queue, jobs may be gone before they are read: {@link #pause(String) pause} the queue
	 * first.
	 * @param queue the queue name
	 * @return the jobs
	 */
	public List<EnqueuedJob> enqueued(String queue) {
		List<EnqueuedJob> jobs = new ArrayList<>();
		for (JobState state : List.of(JobState.READY, JobState.DELAYED)) {
			for (int offset = 0; offset < MAX_LISTED; offset += QueueAdmin.MAX_JOB_PAGE) {
				List<JobInfo> page = this.admin.jobs(queue, state, JobOrder.OLDEST_FIRST, offset,
						Math.min(QueueAdmin.MAX_JOB_PAGE, MAX_LISTED - offset));
				page.forEach((job) -> jobs.add(new EnqueuedJob(job, this.template.getSerializer())));
				if (page.size() < QueueAdmin.MAX_JOB_PAGE) {
					break;
				}
			}
		}
		return jobs;
	}

	/**
	 * The payloads of the jobs {@link #enqueued(String)} lists, read as {@code type}.
	 * @param queue the queue name
	 * @param type the payload type
	 * @param <T> the payload type
	 * @return the payloads, in the same order
	 */
	public <T> List<T> enqueuedPayloads(String queue, Class<T> type) {
		return enqueued(queue).stream().map((job) -> job.payload(type)).toList();
	}

	/**
	 * Stop handing out jobs of a queue, so that what the test enqueues stays to be read;
	 * {@link QueueTestExtension} clears the pause with the queue's keys before the next test.
	 * @param queue the queue name
	 */
	public void pause(String queue) {
		this.admin.pause(queue);
	}

	/**
	 * Hand out jobs of a paused queue again.
	 * @param queue the queue name
	 */
	public void resume(String queue) {
		this.admin.resume(queue);
	}

	// ---- one job at a time

	/**
	 * Run the listener of {@code queue} for one job on this thread and say how it ended. The
	 * listener's container is stopped first if it runs (it stays stopped until the test ends, so
	 * that it takes no job meanwhile; {@link QueueTestExtension} starts it again after the test).
	 * The job is the next one the queue hands out, and it goes through the container's own
	 * acknowledgement, retry and dead-letter handling.
	 * @param queue the queue name
	 * @return the job and how it ended
	 * @throws AssertionError when no listener consumes the queue, several do, or no job is ready
	 */
	public JobRun runOne(String queue) {
		List<QueueListenerContainer> containers = containers().stream()
			.filter((container) -> container.getQueue().equals(queue))
			.toList();
		if (containers.isEmpty()) {
			throw new AssertionError("No listener consumes queue '" + queue + "'");
		}
		if (containers.size() > 1) {
			throw new AssertionError(containers.size() + " listeners consume queue '" + queue
					+ "': name one with runOneWith(listenerId) among " + containers.stream().map(QueueListenerContainer::getId).toList());
		}
		return run(containers.get(0));
	}

	/**
	 * Run the listener with id {@code listenerId} for one job, as {@link #runOne(String)} does.
	 * @param listenerId the listener's id ({@code @QueueListener(id = ...)})
	 * @return the job and how it ended
	 * @throws AssertionError when there is no such listener or no job is ready
	 */
	public JobRun runOneWith(String listenerId) {
		return run(containers().stream()
			.filter((container) -> container.getId().equals(listenerId))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No listener with id '" + listenerId + "' among "
					+ containers().stream().map(QueueListenerContainer::getId).toList())));
	}

	private Collection<QueueListenerContainer> containers() {
		return (this.registry != null) ? this.registry.getListenerContainers() : List.of();
	}

	private JobRun run(QueueListenerContainer container) {
		if (container.isRunning()) {
			container.stop();
			this.stopped.add(container);
		}
		String queue = container.getQueue();
		ReservedJob job = container.runOne()
			.orElseThrow(() -> new AssertionError("No job ready in queue '" + queue + "' for listener '"
					+ container.getId() + "': " + describe(this.admin.counts(queue))));
		Optional<JobInfo> after = this.admin.job(queue, job.id());
		return new JobRun(job, after.map(JobInfo::state).orElse(JobState.COMPLETED),
				after.map(JobInfo::lastError).orElse(null));
	}

	// ---- dead letters

	/**
	 * The dead letters of a queue, most recent first (at most {@link #MAX_LISTED}).
	 * @param queue the queue name
	 * @return the dead jobs
	 */
	public List<DeadJob> deadLetters(String queue) {
		return this.admin.deadLetters(queue, 0, MAX_LISTED);
	}

	/**
	 * Let the current test end with dead letters in {@code queues}; with no queue named, in any
	 * queue. {@link ExpectDeadLetters @ExpectDeadLetters} says the same on a test method or class.
	 * @param queues the queue names
	 */
	public void expectDeadLetters(String... queues) {
		if (queues.length == 0) {
			this.anyDeadLetterExpected = true;
		}
		this.expectedDeadLetters.addAll(List.of(queues));
	}

	/**
	 * Fail when a queue holds dead letters the test did not expect, with each job's error and
	 * payload. {@link QueueTestExtension} calls it after each test that passed otherwise.
	 * @throws AssertionError naming the dead jobs
	 */
	public void assertNoUnexpectedDeadLetters() {
		if (this.anyDeadLetterExpected) {
			return;
		}
		StringBuilder message = new StringBuilder();
		for (String queue : this.admin.queues()) {
			if (this.expectedDeadLetters.contains(queue)) {
				continue;
			}
			long dead = this.admin.counts(queue).dead();
			if (dead > 0) {
				message.append("\n  queue '").append(queue).append("': ").append(dead).append(" dead");
				for (DeadJob job : this.admin.deadLetters(queue, 0, SHOWN_DEAD_LETTERS)) {
					message.append("\n    job ").append(job.id()).append(" after ").append(job.attempts())
						.append(" attempt(s): ").append(job.error()).append("\n      payload ")
						.append(abbreviate(new String(job.payload(), StandardCharsets.UTF_8)));
				}
			}
		}
		if (!message.isEmpty()) {
			throw new AssertionError("Jobs were dead-lettered (expect them with @ExpectDeadLetters or "
					+ "expectDeadLetters(queue)):" + message);
		}
	}

	private static String abbreviate(String text) {
		return (text.length() <= 200) ? text : text.substring(0, 200) + "...";
	}

	// ---- per test

	/**
	 * Forget what the previous test expected; called before each test.
	 * @param expected queues whose dead letters the test expects ({@code null} for none, empty for any)
	 */
	void beginTest(String @Nullable [] expected) {
		this.expectedDeadLetters.clear();
		this.anyDeadLetterExpected = false;
		if (expected != null) {
			expectDeadLetters(expected);
		}
	}

	/** Start again the listeners {@link #runOne(String)} stopped; called after each test. */
	void endTest() {
		for (QueueListenerContainer container : this.stopped) {
			container.start();
		}
		this.stopped.clear();
	}

}
