package io.github.redisqueue.samples.benchmark;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

import io.github.redisqueue.core.QueueTemplate;

/**
 * Latency as a user sees it: the consumers already started and idle (blocked waiting for work),
 * one producer thread enqueues {@code rate} jobs per second for the phase's duration, each
 * payload carrying {@link System#nanoTime()} taken just before its enqueue, and each job's latency
 * is its handler's start minus that time; p50, p99, p99.9 and max of the {@code rate x seconds}
 * samples. The thin loop is measured the same way, its consumers blocked on {@code BLMOVE}. The
 * commands Redis executed and the client sent over the phase, per job, are what one job costs at
 * that rate, idle waits and wake-ups included.
 */
final class LatencyPhase {

	private final RedisUnderTest redis;

	private final int rate;

	private final int jobs;

	/** p50, p99, p99.9 and max. */
	private final Figures[] figures;

	LatencyPhase(RedisUnderTest redis, int rate, double seconds, Figures[] figures) {
		this.redis = redis;
		this.rate = rate;
		this.jobs = (int) Math.max(1, Math.round(rate * seconds));
		this.figures = figures;
	}

	/** The four figures of one latency series, labelled with {@code who} and the rate. */
	static Figures[] figures(String who, int rate) {
		String at = " @" + rate + "/s";
		return new Figures[] { new Figures(who + "latency p50" + at, "ms"), new Figures(who + "latency p99" + at, "ms"),
				new Figures(who + "latency p99.9" + at, "ms"), new Figures(who + "latency max" + at, "ms") };
	}

	/** The samples each run takes: rate x seconds. */
	int jobs() {
		return this.jobs;
	}

	/**
	 * Measure a started {@code @QueueListener} container that feeds {@code listener}; the jobs are
	 * numbered from {@code firstId}.
	 */
	void ours(QueueTemplate queues, BenchListener listener, long firstId) {
		listener.expect(firstId, this.jobs);
		Measure.awaitBlocked(this.redis, 1);
		Measure measure = Measure.start(this.redis);
		produce((i) -> queues.enqueue(BenchListener.QUEUE, BenchPayload.of(firstId + i, System.nanoTime())));
		QueueBenchmark.await(() -> listener.samples() >= this.jobs);
		record(listener.latencies().clone(), listener.samples(), measure);
	}

	/** Measure the thin loop's consumers, blocked on {@code BLMOVE} before the first job. */
	void thin(ThinLoop thin, int concurrency) throws Exception {
		long[] latencies = new long[this.jobs];
		AtomicLong received = new AtomicLong();
		try (ThinLoop.Blocked consumers = thin.blocked((payload, now) -> {
			latencies[(int) payload.id()] = now - payload.sentNanos();
			received.incrementAndGet();
		})) {
			Measure.awaitBlocked(this.redis, concurrency);
			Measure measure = Measure.start(this.redis);
			produce((i) -> thin.push(BenchPayload.of(i, System.nanoTime())));
			QueueBenchmark.await(() -> received.get() >= this.jobs);
			record(latencies, received.get(), measure);
		}
	}

	/** One producer thread (this one) at the fixed rate. */
	private void produce(LongConsumer send) {
		long interval = TimeUnit.SECONDS.toNanos(1) / this.rate;
		long next = System.nanoTime();
		for (long i = 0; i < this.jobs; i++) {
			LockSupport.parkNanos(next - System.nanoTime());
			send.accept(i);
			next += interval;
		}
	}

	private void record(long[] latencies, long samples, Measure measure) {
		CommandStats.Delta commands = measure.commands();
		long cpu = measure.cpu();
		long allocated = measure.allocated();
		Arrays.sort(latencies);
		double[] values = { percentile(latencies, 50), percentile(latencies, 99), percentile(latencies, 99.9),
				latencies[latencies.length - 1] / 1e6 };
		for (int i = 0; i < values.length; i++) {
			this.figures[i].add(values[i], commands, this.jobs, cpu);
			this.figures[i].allocated(allocated, this.jobs);
			this.figures[i].samples(samples);
		}
	}

	static double percentile(long[] sorted, double p) {
		int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
	}

}
