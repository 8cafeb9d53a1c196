package io.github.redisqueue.samples.benchmark;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redisqueue.annotation.QueueListener;

/**
 * The no-op handler of the drain and latency phases, through the real {@code @QueueListener}
 * path. It counts jobs, notices any job delivered twice, and records the time from enqueue to
 * handler start.
 */
public class BenchListener {

	static final String QUEUE = "bench";

	private final BitSet seen = new BitSet();

	private final AtomicLong handled = new AtomicLong();

	private final AtomicLong duplicates = new AtomicLong();

	private final AtomicLong samples = new AtomicLong();

	private volatile long[] latencies = new long[0];

	private volatile long firstTimed;

	/**
	 * Record from now on the latency of the jobs numbered {@code firstId} to
	 * {@code firstId + jobs - 1} whose payload carries its enqueue time.
	 */
	void expect(long firstId, int jobs) {
		this.latencies = new long[jobs];
		this.samples.set(0);
		this.firstTimed = firstId;
	}

	@QueueListener(queue = QUEUE, id = "bench", concurrency = "${bench.concurrency}", autoStartup = "false")
	void handle(BenchPayload payload) {
		long now = System.nanoTime();
		int id = (int) payload.id();
		long slot = id - this.firstTimed;
		long[] timed = this.latencies;
		if (payload.sentNanos() > 0 && slot >= 0 && slot < timed.length) {
			timed[(int) slot] = now - payload.sentNanos();
			this.samples.incrementAndGet();
		}
		synchronized (this.seen) {
			if (this.seen.get(id)) {
				this.duplicates.incrementAndGet();
			}
			this.seen.set(id);
		}
		this.handled.incrementAndGet();
	}

	long handled() {
		return this.handled.get();
	}

	long duplicates() {
		return this.duplicates.get();
	}

	/** Latencies recorded since {@link #expect}. */
	long samples() {
		return this.samples.get();
	}

	long[] latencies() {
		return this.latencies;
	}

}
