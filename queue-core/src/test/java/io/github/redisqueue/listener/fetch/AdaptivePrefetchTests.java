package io.github.redisqueue.listener.fetch;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The arithmetic of an unset prefetch: it keeps about two reserve round trips of handler work
 * reserved ahead, between the concurrency and 16 per thread (at most 256).
 */
class AdaptivePrefetchTests {

	private static final long MICROS = TimeUnit.MICROSECONDS.toNanos(1);

	@Test
	void startsAtTheConcurrencyAndStaysThereUntilAHandlerFinished() {
		AdaptivePrefetch prefetch = new AdaptivePrefetch(4);
		assertThat(prefetch.current()).isEqualTo(4);
		assertThat(prefetch.reserved(500 * MICROS)).isEqualTo(4);
	}

	@Test
	void keepsTwoRoundTripsOfWorkAhead() {
		AdaptivePrefetch prefetch = new AdaptivePrefetch(4);
		// 4 threads finishing a job each 100 us: 20 jobs in one 500 us round trip, 40 in two
		handle(prefetch, 10, 100 * MICROS);
		assertThat(prefetch.reserved(500 * MICROS)).isEqualTo(40);
		// each 10 us: 400 in two round trips, capped at 16 per thread
		AdaptivePrefetch faster = new AdaptivePrefetch(4);
		handle(faster, 10, 10 * MICROS);
		assertThat(faster.reserved(500 * MICROS)).isEqualTo(64);
		// 4 threads, 1 ms per job, 1 ms round trips: 8 jobs in two round trips
		AdaptivePrefetch slower = new AdaptivePrefetch(4);
		handle(slower, 10, 1000 * MICROS);
		assertThat(slower.reserved(1000 * MICROS)).isEqualTo(8);
	}

	@Test
	void shrinksBackToTheConcurrencyWhenHandlersSlowDown() {
		AdaptivePrefetch prefetch = new AdaptivePrefetch(4);
		handle(prefetch, 10, 10 * MICROS);
		assertThat(prefetch.reserved(500 * MICROS)).isEqualTo(64);
		int reserves = 0;
		while (prefetch.current() > 4 && reserves < 100) {
			handle(prefetch, 4, TimeUnit.MILLISECONDS.toNanos(100));
			prefetch.reserved(500 * MICROS);
			reserves++;
		}
		assertThat(prefetch.current()).isEqualTo(4);
		assertThat(reserves).as("reserves it took").isLessThan(20);
	}

	@Test
	void ceilingIsSixteenPerThreadAtMost256AndNeverBelowTheConcurrency() {
		assertThat(new AdaptivePrefetch(1).ceiling()).isEqualTo(16);
		assertThat(new AdaptivePrefetch(10).ceiling()).isEqualTo(160);
		assertThat(new AdaptivePrefetch(20).ceiling()).isEqualTo(256);
		assertThat(new AdaptivePrefetch(100).ceiling()).isEqualTo(256);
		assertThat(new AdaptivePrefetch(1000).ceiling()).isEqualTo(1000);
		AdaptivePrefetch big = new AdaptivePrefetch(1000);
		handle(big, 10, 1);
		assertThat(big.reserved(TimeUnit.SECONDS.toNanos(1))).isEqualTo(1000);
	}

	private static void handle(AdaptivePrefetch prefetch, int jobs, long nanos) {
		for (int i = 0; i < jobs; i++) {
			prefetch.handled(nanos);
		}
	}

}
