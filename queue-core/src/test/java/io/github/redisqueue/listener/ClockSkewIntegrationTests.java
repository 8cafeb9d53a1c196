package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.Reservation;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fetch loop compares the due time of a delayed job with the Redis clock, not with the
 * JVM's. A Redis server whose clock is behind is simulated at the reply: every time a reserve
 * returns (the next due time and the server time) is shifted back by the skew, which is all the
 * loop sees of the server clock. Skewing the clock of a real redis-server process needs a
 * preloaded time shim, which this build cannot count on.
 */
class ClockSkewIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration SKEW = Duration.ofSeconds(2);

	@Test
	void delayedJobOnAnIdleQueueCostsNoExtraReservesWhenTheRedisClockIsBehind() {
		SkewedTemplate queues = new SkewedTemplate(this.connectionFactory, SKEW);
		AtomicInteger handled = new AtomicInteger();
		QueueListenerContainer container = new QueueListenerContainer("skew", "skew", queues,
				(job, ack) -> handled.incrementAndGet(),
				ContainerOptions.builder().pollInterval(Duration.ofSeconds(1)).lease(Duration.ofSeconds(30)).build(),
				null, null);
		container.start();
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> queues.reserves.get() >= 1);
			long start = System.nanoTime();
			queues.enqueue("skew", "later", JobOptions.builder().delay(Duration.ofSeconds(3)).build());
			int before = queues.reserves.get();

			await().atMost(Duration.ofSeconds(60)).until(() -> handled.get() == 1);
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			int reserves = queues.reserves.get() - before;

			// not before it was due (a lower bound, which no load can break)
			assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(2900));
			// one on the wake-up of the enqueue, one when due, and a spare: not one per blocking
			// command timed out at once for the length of the skew
			assertThat(reserves).as("reserve calls while the delayed job waited").isLessThanOrEqualTo(4);
		}
		finally {
			container.stop();
		}
	}

	/** Answers as a Redis server whose clock is {@code skew} behind this JVM's would. */
	static final class SkewedTemplate extends QueueTemplate {

		final AtomicInteger reserves = new AtomicInteger();

		private final Duration skew;

		SkewedTemplate(RedisConnectionFactory connectionFactory, Duration skew) {
			super(connectionFactory);
			this.skew = skew;
		}

		@Override
		public Reservation reserveBatch(String queue, int max, Duration lease, String workerId,
				Collection<JobRef> completions, int maxAttempts, int startNow) {
			this.reserves.incrementAndGet();
			Reservation r = super.reserveBatch(queue, max, lease, workerId, completions, maxAttempts, startNow);
			return new Reservation(r.jobs(), (r.nextDue() != null) ? r.nextDue().minus(this.skew) : null, r.reclaimed(),
					r.expired(), r.refusedCompletions(), r.missingCompletions(), r.serverTime().minus(this.skew),
					r.unsentCompletions(), r.rateLimitedUntil(), r.reservedAhead(), r.cutShort());
		}

	}

}
