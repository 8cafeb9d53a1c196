package io.github.redisqueue.listener.fetch;

import java.util.concurrent.atomic.LongAdder;

import io.github.redisqueue.listener.ContainerOptions;

/**
 * How many jobs a fetch loop reserves ahead of its handlers when the prefetch is left unset: as
 * many as its handlers finish in about two reserve round trips, never fewer than the concurrency
 * and never more than {@link ContainerOptions#adaptivePrefetchCeiling(int)}. Fast handlers then find a job waiting when they
 * finish instead of waiting for the next reserve, while a job reserved ahead still waits only
 * about two round trips for a thread: slow handlers keep the prefetch at the concurrency, so jobs
 * do not queue up in one worker while another is idle.
 *
 * <p>Handler threads add their times; the fetch loop alone reads them, once per reserve.
 */
final class AdaptivePrefetch {

	/** Reserve round trips' worth of handler work kept reserved ahead. */
	static final int ROUND_TRIPS = 2;

	// weight of the newest sample in the moving averages, as a shift: 1/4
	private static final int SMOOTHING = 2;

	private final int concurrency;

	private final int ceiling;

	private final LongAdder handlerNanos = new LongAdder();

	private final LongAdder handled = new LongAdder();

	// moving averages, 0 until the first sample; read and written by the fetch loop only
	private long handlerAverage;

	private long reserveAverage;

	private int current;

	AdaptivePrefetch(int concurrency) {
		this.concurrency = concurrency;
		this.ceiling = ContainerOptions.adaptivePrefetchCeiling(concurrency);
		this.current = concurrency;
	}

	/** The prefetch now. */
	int current() {
		return this.current;
	}

	/** The most it grows to. */
	int ceiling() {
		return this.ceiling;
	}

	/**
	 * A handler ran one job (any thread).
	 * @param nanos how long it ran
	 */
	void handled(long nanos) {
		this.handlerNanos.add(nanos);
		this.handled.increment();
	}

	/**
	 * A reserve call came back (the fetch loop): fold in its round trip and the handler times
	 * since the last call, and work out the prefetch.
	 * @param roundTripNanos how long the call took
	 * @return the prefetch from now on
	 */
	int reserved(long roundTripNanos) {
		this.reserveAverage = average(this.reserveAverage, Math.max(1, roundTripNanos));
		long count = this.handled.sumThenReset();
		long nanos = this.handlerNanos.sumThenReset();
		if (count > 0) {
			this.handlerAverage = average(this.handlerAverage, Math.max(1, nanos / count));
		}
		if (this.handlerAverage > 0) {
			// jobs the handlers finish in ROUND_TRIPS reserve round trips
			double wanted = (double) ROUND_TRIPS * this.reserveAverage * this.concurrency / this.handlerAverage;
			this.current = (int) Math.max(this.concurrency, Math.min(this.ceiling, Math.ceil(wanted)));
		}
		return this.current;
	}

	private static long average(long average, long sample) {
		return (average == 0) ? sample : average + ((sample - average) >> SMOOTHING);
	}

}
