package io.github.redisqueue.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No busy polling: an idle fetch loop blocks on Redis and wakes as soon as a job is enqueued,
 * while the rest of the application keeps using the shared connection.
 */
class BlockingWaitIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void waiterWakesOnAnEnqueueAndDoesNotBlockOtherCommands() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.reserve("idle", 1, Duration.ofMinutes(1));
		try (QueueWaiter waiter = queues.openWaiter("idle")) {
			// a timeout far beyond the waits below: the waiter returns in time only when woken, and the
			// enqueue (sent over the shared connection while the waiter blocks on its own) returns
			// in time only when it did not queue behind the blocking command
			CompletableFuture<Boolean> woke = CompletableFuture.supplyAsync(() -> waiter.await(Duration.ofMinutes(10)));
			// the enqueue goes over the shared connection while the waiter blocks on its own
			long enqueueStart = System.nanoTime();
			do {
				admin.counts("idle");
			}
			while (!woke.isDone() && System.nanoTime() - enqueueStart < TimeUnit.MILLISECONDS.toNanos(200));
			queues.enqueue("idle", "wake up");

			assertThat(woke.get(2, TimeUnit.MINUTES)).as("waiter was woken by the enqueue, not by its timeout").isTrue();
		}
		assertThat(queues.reserve("idle", 1, Duration.ofMinutes(1))).hasSize(1);
	}

	@Test
	void waiterTimesOutWhenNothingArrives() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.reserve("quiet", 1, Duration.ofMinutes(1));
		try (QueueWaiter waiter = queues.openWaiter("quiet")) {
			long start = System.nanoTime();
			assertThat(waiter.await(Duration.ofMillis(200))).isFalse();
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(150L);
		}
	}

}
