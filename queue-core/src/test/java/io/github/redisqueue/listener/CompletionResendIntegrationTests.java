package io.github.redisqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.ExtendResult;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.QueueWaiter;
import io.github.redisqueue.core.Reservation;
import io.github.redisqueue.core.WaitResult;
import io.github.redisqueue.listener.ack.AckBatcher;
import io.github.redisqueue.listener.fetch.FetchLoop;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Completions whose call failed (connection reset, Redis restarting) are kept and sent again
 * until Redis answers, instead of being dropped (the job would run again when its lease runs
 * out). Calls that fail are simulated in the template, before or after Redis ran them.
 */
class CompletionResendIntegrationTests extends AbstractRedisIntegrationTests {

	private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

	private final List<Logger> loggers = List.of((Logger) LoggerFactory.getLogger(FetchLoop.class),
			(Logger) LoggerFactory.getLogger(AckBatcher.class));

	@BeforeEach
	void captureLogs() {
		this.logs.start();
		this.loggers.forEach((logger) -> {
			logger.addAppender(this.logs);
			logger.setLevel(Level.DEBUG);
		});
	}

	@AfterEach
	void releaseLogs() {
		this.loggers.forEach((logger) -> {
			logger.detachAppender(this.logs);
			logger.setLevel(null);
		});
		this.logs.stop();
	}

	@Test
	void completionOfAFailedCallIsSentAgainAndTheJobRunsOnce() throws Exception {
		FlakyTemplate queues = new FlakyTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		AtomicInteger calls = new AtomicInteger();
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch mayFinish = new CountDownLatch(1);
		QueueListenerContainer container = container(queues, "resend", (job, ack) -> {
			if (calls.incrementAndGet() == 1) {
				running.countDown();
				mayFinish.await(30, TimeUnit.SECONDS);
			}
		});
		try {
			String id = queues.enqueue("resend", "x").id();
			assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

			// Redis does not answer: the calls change nothing, and leases are not extended either
			queues.failBefore = true;
			queues.failExtensions = true;
			mayFinish.countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> queues.failedCompletions.contains(id));
			// the outage outlasts the lease of the finished job
			await().atMost(Duration.ofSeconds(10))
				.until(() -> admin.job("resend", id).map((info) -> info.leaseUntil().isBefore(Instant.now().minusMillis(300)))
					.orElse(true));
			queues.failBefore = false;
			queues.failExtensions = false;

			await().atMost(Duration.ofSeconds(10)).until(() -> admin.counts("resend").total("completed") == 1);
			// longer than the lease and the half-lease reclaim of the fetch loop: the job stays done
			await().during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(30)).until(() -> calls.get() == 1);
			assertThat(admin.job("resend", id)).isEmpty();
			assertThat(admin.counts("resend").pending()).isZero();
		}
		finally {
			container.stop();
		}
	}

	@Test
	void aFinishedJobKeepsItsLeaseWhileItsCompletionCannotBeSent() throws Exception {
		FlakyTemplate queues = new FlakyTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		AtomicInteger calls = new AtomicInteger();
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch mayFinish = new CountDownLatch(1);
		QueueListenerContainer container = container(queues, "kept", (job, ack) -> {
			calls.incrementAndGet();
			running.countDown();
			mayFinish.await(30, TimeUnit.SECONDS);
		});
		try {
			String id = queues.enqueue("kept", "x").id();
			assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

			queues.failBefore = true; // the calls carrying completions fail, lease extensions do not
			mayFinish.countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> queues.failedCompletions.contains(id));
			Instant finishedBy = admin.job("kept", id).orElseThrow().leaseUntil();
			// a whole lease (1 s) past the deadline it had when it finished: extended meanwhile
			await().atMost(Duration.ofSeconds(10)).until(() -> admin.job("kept", id)
				.map((info) -> info.leaseUntil().isAfter(finishedBy.plusSeconds(1)))
				.orElse(false));
			assertThat(admin.job("kept", id).orElseThrow().state()).isEqualTo(JobState.ACTIVE);
			assertThat(admin.counts("kept").total("reaped")).as("never taken back").isZero();
			queues.failBefore = false;

			await().atMost(Duration.ofSeconds(10)).until(() -> admin.counts("kept").total("completed") == 1);
			assertThat(calls).hasValue(1);
		}
		finally {
			queues.failBefore = false;
			container.stop();
		}
	}

	/**
	 * The events logged so far, copied while no thread appends (the appender appends under its
	 * own lock; reading its list while a job thread logs failed with a
	 * ConcurrentModificationException).
	 */
	private List<ILoggingEvent> events() {
		synchronized (this.logs) {
			return new ArrayList<>(this.logs.list);
		}
	}

	@Test
	void completionSentAgainAfterALostReplyIsNotReportedAsALostLease() throws Exception {
		FlakyTemplate queues = new FlakyTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		AtomicInteger calls = new AtomicInteger();
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch mayFinish = new CountDownLatch(1);
		QueueListenerContainer container = container(queues, "replies", (job, ack) -> {
			calls.incrementAndGet();
			running.countDown();
			mayFinish.await(30, TimeUnit.SECONDS);
		});
		try {
			String id = queues.enqueue("replies", "x").id();
			assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

			queues.failAfter = true; // Redis runs the call, the reply is lost (connection reset)
			mayFinish.countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> queues.failedCompletions.contains(id));
			queues.failAfter = false;

			// sent again; the job is gone already: logged as such, not as a lost lease
			await().atMost(Duration.ofSeconds(10)).until(() -> events().stream()
				.anyMatch((event) -> event.getFormattedMessage().contains("already completed or gone")));
			assertThat(events()).filteredOn((event) -> event.getLevel().isGreaterOrEqual(Level.WARN))
				.extracting(ILoggingEvent::getFormattedMessage)
				.noneMatch((message) -> message.contains("lease") || message.contains("refused"));
			assertThat(admin.job("replies", id)).isEmpty();
			assertThat(calls).hasValue(1);
		}
		finally {
			container.stop();
		}
	}

	private static QueueListenerContainer container(QueueTemplate queues, String queue, JobListener listener) {
		QueueListenerContainer container = new QueueListenerContainer(queue, queue, queues, listener,
				ListenerTestSupport.fast(ContainerOptions.defaults()).toBuilder().lease(Duration.ofSeconds(1)).build(), null, null);
		container.start();
		return container;
	}

	/** Fails the calls that carry completions while told to, before or after Redis ran them. */
	static final class FlakyTemplate extends QueueTemplate {

		final Set<String> failedCompletions = ConcurrentHashMap.newKeySet();

		volatile boolean failBefore;

		volatile boolean failAfter;

		volatile boolean failExtensions;

		FlakyTemplate(RedisConnectionFactory connectionFactory) {
			super(connectionFactory);
		}

		@Override
		public Reservation reserveBatch(String queue, int max, Duration lease, String workerId,
				Collection<JobRef> completions, int maxAttempts, int startNow) {
			failBefore(completions);
			Reservation reservation = super.reserveBatch(queue, max, lease, workerId, completions, maxAttempts,
					startNow);
			failAfter(completions);
			return reservation;
		}

		@Override
		public @Nullable WaitResult reserveAfterWait(String queue, QueueWaiter waiter, Duration timeout,
				boolean onlyWoken, int max, Duration lease, String workerId, int maxAttempts, int startNow,
				Collection<JobRef> completions, Consumer<@Nullable List<AckResult>> completed,
				@Nullable ToIntFunction<Reservation> handOff) {
			if (this.failBefore && !completions.isEmpty()) {
				// the completions sent in front of the wait fail, the wait and its reserve go on
				completions.forEach((job) -> this.failedCompletions.add(job.id()));
				completed.accept(null);
				return super.reserveAfterWait(queue, waiter, timeout, onlyWoken, max, lease, workerId, maxAttempts,
						startNow, List.of(), completed, handOff);
			}
			return super.reserveAfterWait(queue, waiter, timeout, onlyWoken, max, lease, workerId, maxAttempts, startNow,
					completions, (results) -> {
						if (this.failAfter && results != null && !completions.isEmpty()) {
							// Redis ran them, the reply was lost
							completions.forEach((job) -> this.failedCompletions.add(job.id()));
							completed.accept(null);
						}
						else {
							completed.accept(results);
						}
					}, handOff);
		}

		@Override
		public List<AckResult> completeAll(String queue, Collection<JobRef> jobs) {
			failBefore(jobs);
			List<AckResult> results = super.completeAll(queue, jobs);
			failAfter(jobs);
			return results;
		}

		@Override
		public List<ExtendResult> extendAll(String queue, Collection<JobRef> jobs, Duration lease) {
			if (this.failExtensions) {
				throw new RedisConnectionFailureException("simulated: connection reset");
			}
			return super.extendAll(queue, jobs, lease);
		}

		private void failBefore(Collection<JobRef> completions) {
			if (this.failBefore) {
				fail(completions);
			}
		}

		private void failAfter(Collection<JobRef> completions) {
			if (this.failAfter && !completions.isEmpty()) {
				fail(completions);
			}
		}

		private void fail(Collection<JobRef> completions) {
			completions.forEach((job) -> this.failedCompletions.add(job.id()));
			throw new RedisConnectionFailureException("simulated: connection reset");
		}

	}

}
