package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.QueueWaiter;
import io.github.redisqueue.core.Reservation;
import io.github.redisqueue.core.WaitResult;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A loop that holds no job once its jobs are done, after a reserve that emptied the queue, sends
 * their completions in front of its next wait, in the same write, instead of a reserve carrying
 * them: what those completions free (the next sub-job of a batch at its cap) wakes the loop, and
 * a job enqueued meanwhile left a wake-up, so nothing waits for a poll interval.
 */
// on one server only: the reserve behind a wait needs a waiter's own connection, which a cluster
// does not give
@Tag("single-node")
class CompletionAheadOfWaitIntegrationTests {

	// longer than every wait below: a job handled within it woke the loop
	private static final Duration POLL = Duration.ofSeconds(30);

	@Test
	void completionsGoInFrontOfTheWaitAndWhatTheyFreeWakesTheLoop() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			QueueListenerContainer container = null;
			try {
				CountingTemplate queues = new CountingTemplate(factory);
				QueueAdmin admin = new QueueAdmin(queues);
				AtomicInteger handled = new AtomicInteger();
				container = new QueueListenerContainer("ahead", "ahead", queues, (job, ack) -> handled.incrementAndGet(),
						ContainerOptions.builder().pollInterval(POLL).lease(Duration.ofMinutes(60)).concurrency(4).build(),
						null, null);
				container.start();
				await().atMost(Duration.ofSeconds(30)).until(() -> queues.waits.get() >= 1);
				int reservesBefore = queues.reserves.get();

				String id = queues.enqueue("ahead", "one").id();
				await().atMost(Duration.ofSeconds(20)).until(() -> admin.counts("ahead").total("completed") == 1);
				// (its completion goes in front of the next wait when the job ended within the linger,
				// else on its own: a busy machine decides which)
				assertThat(queues.reserves.get()).as("reserves other than those behind a wait").isEqualTo(reservesBefore);
				assertThat(admin.job("ahead", id)).isEmpty();

				// a batch capped at one sub-job at a time: each completion (in front of the wait, or on
				// its own) admits the next, whose wake-up ends the loop's wait at once
				queues.batch("ahead").maxConcurrency(1).addAll(List.of("a", "b", "c")).submit();
				await().atMost(Duration.ofSeconds(20)).until(() -> handled.get() == 4);
				await().atMost(Duration.ofSeconds(20)).until(() -> admin.counts("ahead").total("completed") == 4);
			}
			finally {
				if (container != null) {
					container.stop();
				}
				factory.destroy();
			}
		}
	}

	/** Counts the reserves a fetch loop makes, apart from those behind its waits, and its waits. */
	static final class CountingTemplate extends QueueTemplate {

		final AtomicInteger reserves = new AtomicInteger();

		final AtomicInteger waits = new AtomicInteger();

		CountingTemplate(RedisConnectionFactory connectionFactory) {
			super(connectionFactory);
		}

		@Override
		public Reservation reserveBatch(String queue, int max, Duration lease, String workerId,
				Collection<JobRef> completions, int maxAttempts, int startNow) {
			this.reserves.incrementAndGet();
			return super.reserveBatch(queue, max, lease, workerId, completions, maxAttempts, startNow);
		}

		@Override
		public @Nullable WaitResult reserveAfterWait(String queue, QueueWaiter waiter, Duration timeout,
				boolean onlyWoken, int max, Duration lease, String workerId, int maxAttempts, int startNow,
				Collection<JobRef> completions, Consumer<@Nullable List<AckResult>> completed,
				@Nullable ToIntFunction<Reservation> handOff) {
			this.waits.incrementAndGet();
			return super.reserveAfterWait(queue, waiter, timeout, onlyWoken, max, lease, workerId, maxAttempts, startNow,
					completions, completed, handOff);
		}

	}

}
