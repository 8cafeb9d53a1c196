package io.github.redisqueue.listener.fetch;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redisqueue.core.ReservedJob;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The slots of a fetch loop whose prefetch adapts: a job already reserved is always held, even
 * when the prefetch shrank below what is held meanwhile, and no new job finds a slot until enough
 * ended.
 */
class JobSlotsTests {

	private static final long MICROS = TimeUnit.MICROSECONDS.toNanos(1);

	@Test
	void aReservedJobIsHeldAtOnceEvenAfterThePrefetchShrankBelowWhatIsHeld() {
		JobSlots slots = new JobSlots(1, null);
		// a fast handler, then a round trip: the prefetch grows to its ceiling (16 for one thread)
		slots.run(slots.hold(job("fast")), (job) -> {
		});
		slots.reserved(TimeUnit.MILLISECONDS.toNanos(100));
		assertThat(slots.prefetch()).isEqualTo(16);
		RunningJob first = slots.hold(job("held"));
		// a slow handler, then quick round trips: it shrinks back to the concurrency
		slots.run(slots.hold(job("slow")), (job) -> LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)));
		for (int i = 0; i < 30 && slots.prefetch() > 1; i++) {
			slots.reserved(MICROS);
		}
		assertThat(slots.prefetch()).isEqualTo(1);
		// the fetch loop dispatches what a reserve returned before the shrink: holding those jobs
		// must not wait for a slot
		assertTimeoutPreemptively(Duration.ofSeconds(2), () -> {
			for (int i = 0; i < 4; i++) {
				slots.hold(job("reserved-before-the-shrink-" + i));
			}
		});
		assertThat(slots.jobs()).hasSize(5);
		assertThat(slots.free()).as("nothing more until enough ended").isZero();
		slots.release(first);
		assertThat(slots.free()).isZero();
	}

	@Test
	void aJobTakenFromTheLineIsNotCountedAsAFinishedOne() throws Exception {
		JobSlots slots = new JobSlots(4, 4);
		slots.resetReleases();
		slots.hold(job("running"));
		java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
		java.util.concurrent.CountDownLatch finish = new java.util.concurrent.CountDownLatch(1);
		Thread handler = new Thread(() -> slots.runNext((job) -> {
			started.countDown();
			try {
				finish.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}));
		handler.start();
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
		// the fetch loop waits for one of its jobs to finish before it reserves again: taking a job
		// from the line is no such thing
		assertThat(slots.awaitRelease(Duration.ZERO)).as("a finish seen while none happened").isFalse();
		finish.countDown();
		handler.join(10_000);
		assertThat(slots.awaitRelease(Duration.ZERO)).isTrue();
	}

	private static ReservedJob job(String id) {
		return new ReservedJob("q", id, new byte[0], Map.of(), 1, 3, 1, Instant.now().plusSeconds(30), Instant.now(), 0);
	}

}
