package io.github.redisqueue.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.RedisClock;
import io.github.redisqueue.test.RedisEndpoint;
import io.github.redisqueue.test.RedisServerProcess;
import io.github.redisqueue.test.TestRedis;
import org.junit.jupiter.api.AfterAll;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * No script does unbounded work (F08) and every accepted setting works (F07): another client's
 * PING is answered within 50 ms while a reserve works through 200,000 expired jobs, and while
 * releaseWorker and the silent-worker pass walk 100,000 jobs in flight; reaper batches are
 * limited to 10,000 and that limit works. A private Redis, so that the big data sets and the
 * stalls of the old engine touch no other test.
 */
class ScriptBoundsIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(10);

	private static final Duration PING_LIMIT = Duration.ofMillis(50);

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
		try (PingWatchdog watchdog = new PingWatchdog(endpoint(), this.redis)) {
			// consumers come back: each reserve asks for one job; bounded by one call per job
			while (calls <= 200_000 && admin.counts("f08").ready() > 0) {
				assertThat(queues.reserve("f08", 1, LEASE)).isEmpty();
				calls++;
			}
			watchdog.assertAnsweredWithin(PING_LIMIT);
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
		try (PingWatchdog watchdog = new PingWatchdog(endpoint(), this.redis)) {
			released = queues.releaseWorker("f08r", "pod-0#mailer");
			watchdog.assertAnsweredWithin(PING_LIMIT);
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
		try (PingWatchdog watchdog = new PingWatchdog(endpoint(), this.redis)) {
			// the pass may walk the in-flight set in slices and go on in the next pass
			while (passes < 1000 && admin.counts("f08s").ready() < 10) {
				admin.reapOnce();
				passes++;
			}
			watchdog.assertAnsweredWithin(PING_LIMIT);
		}

		QueueCounts counts = admin.counts("f08s");
		assertThat(counts.ready()).as("jobs of the silent worker, after %d passes", passes).isEqualTo(10);
		assertThat(counts.inFlight()).isEqualTo(100_000);
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

		try (PingWatchdog watchdog = new PingWatchdog(endpoint(), this.redis)) {
			for (String queue : List.of("f08j", "f08p")) {
				for (JobOrder order : JobOrder.values()) {
					assertThat(admin.jobs(queue, JobState.READY, order, QueueAdmin.MAX_JOB_PAGE_END - QueueAdmin.MAX_JOB_PAGE,
							QueueAdmin.MAX_JOB_PAGE))
						.as("%s %s", queue, order)
						.hasSize(QueueAdmin.MAX_JOB_PAGE);
				}
			}
			watchdog.assertAnsweredWithin(PING_LIMIT);
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
	 * A second client that sends PING on its own connection every 5 ms and records the longest
	 * round trip and any error reply (such as BUSY).
	 */
	static final class PingWatchdog implements AutoCloseable {

		private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);

		private final Socket socket;

		private final OutputStream out;

		private final InputStream in;

		private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

		private final AtomicLong longestNanos = new AtomicLong();

		private final AtomicLong pings = new AtomicLong();

		private final Queue<String> problems = new ConcurrentLinkedQueue<>();

		private final StringRedisTemplate redis;

		PingWatchdog(RedisEndpoint endpoint, StringRedisTemplate redis) {
			this.redis = redis;
			// the server's own account of slow commands, to tell a long script from a busy machine
			slowlog("CONFIG", "SET", "slowlog-log-slower-than", "10000");
			slowlog("CONFIG", "SET", "slowlog-max-len", "100000");
			slowlog("SLOWLOG", "RESET");
			try {
				this.socket = new Socket();
				this.socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), 1000);
				this.socket.setSoTimeout(30_000);
				this.socket.setTcpNoDelay(true);
				this.out = this.socket.getOutputStream();
				this.in = this.socket.getInputStream();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			ping(); // connected and answering before the measured work starts
			this.longestNanos.set(0);
			this.scheduler.scheduleWithFixedDelay(this::ping, 0, 5, TimeUnit.MILLISECONDS);
		}

		private void ping() {
			long start = System.nanoTime();
			try {
				this.out.write(PING);
				this.out.flush();
				String reply = readLine();
				if (!reply.equals("+PONG")) {
					this.problems.add(reply);
				}
			}
			catch (IOException ex) {
				if (!this.socket.isClosed()) {
					this.problems.add(ex.toString());
				}
				throw new UncheckedIOException(ex); // ends the schedule
			}
			this.longestNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
			this.pings.incrementAndGet();
		}

		private String readLine() throws IOException {
			StringBuilder line = new StringBuilder();
			int b;
			while ((b = this.in.read()) != -1 && b != '\r') {
				line.append((char) b);
			}
			this.in.read(); // '\n'
			return line.toString();
		}

		void assertAnsweredWithin(Duration limit) {
			close();
			Duration longest = Duration.ofNanos(this.longestNanos.get());
			assertThat(this.problems).as("error replies to PING").isEmpty();
			assertThat(this.pings.get()).as("PINGs sent").isPositive();
			assertThat(longest)
				.as("longest PING round trip of %d; Redis slowlog (µs): %s",
						this.pings.get(), slowest())
				.isLessThanOrEqualTo(limit);
		}

		private Object slowlog(String command, String... args) {
			byte[][] bytes = java.util.Arrays.stream(args)
				.map((arg) -> arg.getBytes(StandardCharsets.UTF_8))
				.toArray(byte[][]::new);
			return this.redis.execute((RedisCallback<Object>) (connection) -> connection.execute(command, bytes));
		}

		/** Commands over 10 ms by the server's slowlog: how many, and the five longest (µs). */
		@SuppressWarnings("unchecked")
		private String slowest() {
			Object reply = this.redis.execute((RedisCallback<Object>) (connection) -> {
				try {
					return ((RedisClusterAsyncCommands<byte[], byte[]>) connection.getNativeConnection()).slowlogGet(-1)
						.get(10, TimeUnit.SECONDS);
				}
				catch (Exception ex) {
					return List.of();
				}
			});
			List<String> entries = new java.util.ArrayList<>();
			if (reply instanceof List<?> log) {
				for (Object entry : log) {
					if (entry instanceof List<?> fields && fields.size() > 3 && fields.get(3) instanceof List<?> argv
							&& !argv.isEmpty() && fields.get(2) instanceof Long micros) {
						entries.add(String.format("%09d %s", micros, text(argv.get(0))));
					}
				}
			}
			entries.sort(java.util.Comparator.reverseOrder());
			return entries.size() + " over 10 ms, longest " + entries.subList(0, Math.min(5, entries.size()));
		}

		private static String text(Object value) {
			return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
		}

		@Override
		public void close() {
			this.scheduler.shutdown();
			try {
				this.scheduler.awaitTermination(60, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			try {
				this.socket.close();
			}
			catch (IOException ex) {
				// closing
			}
		}

	}

}
