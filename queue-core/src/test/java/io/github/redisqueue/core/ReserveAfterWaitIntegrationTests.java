package io.github.redisqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A reserve sent right behind a wait on the waiter's own connection runs as soon as the wait
 * ends: a job enqueued during the wait is taken in the wait's round trip, and a wait that timed
 * out runs nothing behind it but the check, unless the reserve was asked for either way.
 */
// on one server only: it counts the commands of a server of its own
@Tag("single-node")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReserveAfterWaitIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private RedisServerProcess server;

	private LettuceConnectionFactory factory;

	@BeforeAll
	void start() {
		this.server = TestRedis.startPrivate();
		this.factory = TestRedis.connectionFactory(this.server.endpoint());
	}

	@AfterAll
	void stop() {
		this.factory.destroy();
		this.server.close();
	}

	@Test
	void aJobEnqueuedDuringTheWaitIsTakenByTheReserveSentBehindIt() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.factory);
		queues.reserve("behind", 1, LEASE);
		try (QueueWaiter waiter = queues.openWaiter("behind")) {
			// far beyond the waits below: only a wake-up ends this wait in time
			CompletableFuture<WaitResult> waited = CompletableFuture.supplyAsync(
					() -> queues.reserveAfterWait("behind", waiter, Duration.ofMinutes(10), true, 4, LEASE, "w-1", 0, 4));
			await().atMost(Duration.ofSeconds(30)).until(() -> blockedClients() == 1);
			long scriptsBefore = scriptCalls();
			String id = queues.enqueue("behind", "payload").id();

			WaitResult result = waited.get(2, TimeUnit.MINUTES);
			assertThat(result.woken()).isTrue();
			assertThat(result.reservation()).isNotNull();
			assertThat(result.reservation().jobs()).extracting(ReservedJob::id).containsExactly(id);
			assertThat(result.reservation().reservedAhead()).as("started at once, a thread being free").isEmpty();
			assertThat(scriptCalls() - scriptsBefore).as("script calls: the enqueue and the reserve behind the wait")
				.isEqualTo(2);
			assertThat(new QueueAdmin(queues).job("behind", id)).get()
				.satisfies((job) -> assertThat(job.state()).isEqualTo(JobState.ACTIVE))
				.satisfies((job) -> assertThat(job.worker()).isEqualTo("w-1"));
		}
	}

	@Test
	void aWaitThatTimesOutRunsOnlyTheCheckBehindItUnlessTheReserveIsAskedForEitherWay() {
		QueueTemplate queues = new QueueTemplate(this.factory);
		queues.reserve("quiet", 1, LEASE);
		try (QueueWaiter waiter = queues.openWaiter("quiet")) {
			Map<String, Long> before = TestRedis.commandStats(this.server.endpoint());
			WaitResult quiet = queues.reserveAfterWait("quiet", waiter, Duration.ofMillis(50), true, 4, LEASE, "w-2", 0,
					4);
			assertThat(quiet.woken()).isFalse();
			assertThat(quiet.reservation()).as("nothing ran behind a wait that took no wake-up").isNull();
			Map<String, Long> after = TestRedis.commandStats(this.server.endpoint());
			assertThat(after.getOrDefault("time", 0L)).as("the reserve stopped before reading the clock")
				.isEqualTo(before.getOrDefault("time", 0L));
			assertThat(after.getOrDefault("del", 0L) - before.getOrDefault("del", 0L)).as("the check of the wake-up")
				.isEqualTo(1);
			for (String other : List.of("llen", "hmget", "zrange", "exists", "hset", "zcard")) {
				assertThat(after.getOrDefault(other, 0L)).as(other).isEqualTo(before.getOrDefault(other, 0L));
			}

			// a job that falls due during the next wait, its wake-up taken by another wait: only a
			// reserve that runs finds it
			String id = queues.enqueue("quiet", "late", JobOptions.builder().delay(Duration.ofMillis(1)).build()).id();
			assertThat(waiter.await(Duration.ofMinutes(1))).isTrue();
			WaitResult due = queues.reserveAfterWait("quiet", waiter, Duration.ofMillis(50), false, 4, LEASE,
					"w-2", 0, 4);
			assertThat(due.woken()).isFalse();
			assertThat(due.reservation()).isNotNull();
			assertThat(due.reservation().jobs()).extracting(ReservedJob::id).containsExactly(id);
		}
	}

	@Test
	void completionsSentInFrontOfTheWaitAreAnsweredBeforeItEnds() {
		QueueTemplate queues = new QueueTemplate(this.factory);
		queues.enqueue("front", "first");
		ReservedJob first = queues.reserve("front", 1, LEASE).get(0);
		List<List<AckResult>> answers = new ArrayList<>();
		String[] second = new String[1];
		try (QueueWaiter waiter = queues.openWaiter("front")) {
			// the wake-up the first enqueue left
			assertThat(waiter.await(Duration.ofMinutes(1))).isTrue();
			// the job enqueued once the completion is answered ends the wait: the answer came first
			WaitResult result = queues.reserveAfterWait("front", waiter, Duration.ofMinutes(10), true, 4, LEASE, "w-3", 0,
					4, List.of(first.ref()), (results) -> {
						answers.add(results);
						second[0] = queues.enqueue("front", "second").id();
					});
			assertThat(answers).containsExactly(List.of(AckResult.OK));
			assertThat(result.woken()).isTrue();
			assertThat(result.reservation()).isNotNull();
			assertThat(result.reservation().jobs()).extracting(ReservedJob::id).containsExactly(second[0]);
			assertThat(new QueueAdmin(queues).job("front", first.id())).isEmpty();
			assertThat(new QueueAdmin(queues).counts("front").total("completed")).isEqualTo(1);

			// a completion refused by its token is answered so, and the wait goes on
			answers.clear();
			WaitResult quiet = queues.reserveAfterWait("front", waiter, Duration.ofMillis(50), true, 4, LEASE, "w-3", 0,
					4, List.of(new JobRef(second[0], 99)), answers::add);
			assertThat(answers).containsExactly(List.of(AckResult.STALE_TOKEN));
			assertThat(quiet.woken()).isFalse();
			assertThat(new QueueAdmin(queues).job("front", second[0])).get()
				.satisfies((job) -> assertThat(job.state()).isEqualTo(JobState.ACTIVE));
		}
	}

	@Test
	void endingAWaitRunsTheReserveBehindItAndSaysWhetherAWaitWasEnded() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.factory);
		queues.reserve("ended", 1, LEASE);
		try (QueueWaiter waiter = queues.openWaiter("ended")) {
			assertThat(waiter.endWait()).as("no wait under way").isFalse();
			// the reserve behind the wait is asked for either way: it runs once the wait is ended
			String id = queues.enqueue("ended", "x").id();
			assertThat(waiter.await(Duration.ofMinutes(1))).as("the enqueue's wake-up").isTrue();
			CompletableFuture<WaitResult> waited = CompletableFuture.supplyAsync(
					() -> queues.reserveAfterWait("ended", waiter, Duration.ofMinutes(10), false, 4, LEASE, "w-4", 0, 4));
			await().atMost(Duration.ofSeconds(30)).until(() -> blockedClients() == 1);

			assertThat(waiter.endWait()).isTrue();
			WaitResult result = waited.get(2, TimeUnit.MINUTES);
			assertThat(result.woken()).isFalse();
			assertThat(result.reservation()).isNotNull();
			assertThat(result.reservation().jobs()).extracting(ReservedJob::id).containsExactly(id);
		}
	}

	@Test
	void aHandOffTakesTheJobsOnTheClientsThreadAsTheReplyArrivesAndTellsHowManyItTook() {
		QueueTemplate queues = new QueueTemplate(this.factory);
		List<String> ids = queues.enqueueAll("handed", List.of("a", "b", "c"), JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();
		List<String> seen = new ArrayList<>();
		Thread[] on = new Thread[1];
		try (QueueWaiter waiter = queues.openWaiter("handed")) {
			// the enqueue's wake-ups are there: the wait ends at once and the reserve behind it takes the three
			WaitResult result = queues.reserveAfterWait("handed", waiter, Duration.ofMinutes(10), true, 4, LEASE, "w-5",
					0, 1, List.of(), (results) -> {
					}, (reservation) -> {
						on[0] = Thread.currentThread();
						reservation.jobs().forEach((job) -> seen.add(job.id()));
						return 2;
					});

			assertThat(on[0]).as("the hand-off ran").isNotNull();
			assertThat(on[0]).as("not on the waiting thread").isNotSameAs(Thread.currentThread());
			assertThat(on[0].getName()).as("on the client's I/O thread").startsWith("lettuce-");
			assertThat(seen).containsExactlyElementsOf(ids);
			assertThat(result.woken()).isTrue();
			assertThat(result.handedOff()).isEqualTo(2);
			assertThat(result.reservation()).isNotNull();
			assertThat(result.reservation().jobs()).extracting(ReservedJob::id).containsExactlyElementsOf(ids);
			assertThat(result.reservation().reservedAhead()).as("one thread free: the other two reserved ahead")
				.containsExactlyInAnyOrderElementsOf(ids.subList(1, 3));
		}
	}

	@Test
	void aHandOffThatThrowsCountsAsHavingTakenEveryJob() {
		QueueTemplate queues = new QueueTemplate(this.factory);
		List<String> ids = queues.enqueueAll("thrown", List.of("a", "b"), JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();
		try (QueueWaiter waiter = queues.openWaiter("thrown")) {
			WaitResult result = queues.reserveAfterWait("thrown", waiter, Duration.ofMinutes(10), true, 4, LEASE, "w-8",
					0, 4, List.of(), (results) -> {
					}, (reservation) -> {
						throw new IllegalStateException("broken hand-off");
					});

			// how many it took is unknown: none is dispatched again by the caller, the call itself succeeded
			assertThat(result.reservation()).isNotNull();
			assertThat(result.reservation().jobs()).extracting(ReservedJob::id).containsExactlyElementsOf(ids);
			assertThat(result.handedOff()).isEqualTo(2);
		}
	}

	@Test
	void aReplyWithAPayloadKeptApartForItsSizeIsNotHandedOff() {
		QueueTemplate queues = new QueueTemplate(this.factory);
		String large = "x".repeat(10_000);
		String id = queues.enqueue("apart", large).id();
		boolean[] called = {false};
		try (QueueWaiter waiter = queues.openWaiter("apart")) {
			WaitResult result = queues.reserveAfterWait("apart", waiter, Duration.ofMinutes(10), true, 4, LEASE, "w-6", 0,
					4, List.of(), (results) -> {
					}, (reservation) -> {
						called[0] = true;
						return reservation.jobs().size();
					});

			assertThat(called[0]).as("reading the payload takes a call: left to the waiting thread").isFalse();
			assertThat(result.handedOff()).isZero();
			assertThat(result.reservation()).isNotNull();
			assertThat(result.reservation().jobs()).singleElement().satisfies((job) -> {
				assertThat(job.id()).isEqualTo(id);
				String payload = queues.readPayload(job, String.class);
				assertThat(payload).isEqualTo(large);
			});
		}
	}

	@Test
	void aReserveThatFailedAndRanAgainIsNotHandedOffAndTakesItsJobOnce() {
		QueueTemplate queues = new QueueTemplate(this.factory);
		String id = queues.enqueue("lost", "payload").id();
		try (QueueWaiter waiter = queues.openWaiter("lost")) {
			// Redis loses the library: the reserve behind the wait fails, then is run again once it is loaded
			try (var connection = this.factory.getConnection()) {
				connection.execute("FUNCTION", "FLUSH".getBytes(java.nio.charset.StandardCharsets.UTF_8));
				connection.execute("SCRIPT", "FLUSH".getBytes(java.nio.charset.StandardCharsets.UTF_8));
			}
			boolean[] called = {false};
			WaitResult result = queues.reserveAfterWait("lost", waiter, Duration.ofMinutes(10), true, 4, LEASE, "w-7", 0,
					4, List.of(), (results) -> {
					}, (reservation) -> {
						called[0] = true;
						return reservation.jobs().size();
					});

			assertThat(called[0]).as("the failed reply is not handed off, nor the one run again").isFalse();
			assertThat(result.handedOff()).isZero();
			assertThat(result.reservation()).isNotNull();
			assertThat(result.reservation().jobs()).singleElement().satisfies((job) -> {
				assertThat(job.id()).isEqualTo(id);
				assertThat(job.token()).as("reserved once: its first fencing token").isEqualTo(1);
			});
			assertThat(new QueueAdmin(queues).job("lost", id)).get()
				.satisfies((job) -> assertThat(job.state()).isEqualTo(JobState.ACTIVE));
		}
	}

	private long blockedClients() {
		try (var connection = this.factory.getConnection()) {
			return Long.parseLong(connection.serverCommands().info("clients").getProperty("blocked_clients"));
		}
	}

	private long scriptCalls() {
		Map<String, Long> stats = TestRedis.commandStats(this.server.endpoint());
		return stats.getOrDefault("fcall", 0L) + stats.getOrDefault("evalsha", 0L) + stats.getOrDefault("eval", 0L);
	}

}
