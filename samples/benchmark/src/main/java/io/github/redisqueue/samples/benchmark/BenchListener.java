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

	private volatile long[] latencies = new long[0];

	/** Size the latency array for a phase. */
	void expect(int jobs) {
		this.latencies = new long[jobs];
	}

	@QueueListener(queue = QUEUE, id = "bench", concurrency = "${bench.concurrency}", autoStartup = "false")
	void handle(BenchPayload payload) {
		long now = System.nanoTime();
		int id = (int) payload.id();
		if (payload.sentNanos() > 0 && id < this.latencies.length) {
			this.latencies[id] = now - payload.sentNanos();
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

	long[] latencies() {
		return this.latencies;
	}

}
