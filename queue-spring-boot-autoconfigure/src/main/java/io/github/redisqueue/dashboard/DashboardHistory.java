package io.github.redisqueue.dashboard;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redisqueue.core.QueueCounts;

/**
 * Throughput samples of each queue for the overview's charts: at most one sample per interval,
 * taken when a page reads the overview (nothing runs while nobody looks), the last
 * {@value #SAMPLES} kept. Each sample is the completions per second of about the last minute, as
 * Redis counts them for all consumers, so every instance serving the dashboard draws the same
 * curve. Thread safe.
 */
final class DashboardHistory {

	static final int SAMPLES = 120;

	private final long intervalMillis;

	private final Map<String, Deque<double[]>> samples = new ConcurrentHashMap<>();

	private long lastSample;

	DashboardHistory(long intervalMillis) {
		this.intervalMillis = Math.max(1000, intervalMillis);
	}

	/** Records the counts read at {@code now} (ms) if the last sample is an interval old. */
	synchronized void record(Map<String, QueueCounts> counts, long now) {
		if (now - this.lastSample < this.intervalMillis) {
			return;
		}
		this.lastSample = now;
		this.samples.keySet().retainAll(counts.keySet());
		counts.forEach((queue, c) -> {
			Deque<double[]> queueSamples = this.samples.computeIfAbsent(queue, (name) -> new ArrayDeque<>());
			queueSamples.addLast(new double[] { now, c.throughput() });
			while (queueSamples.size() > SAMPLES) {
				queueSamples.removeFirst();
			}
		});
	}

	/** The samples of a queue, oldest first, each {time in ms, jobs per second}. */
	synchronized List<double[]> of(String queue) {
		Deque<double[]> queueSamples = this.samples.get(queue);
		return (queueSamples != null) ? new ArrayList<>(queueSamples) : List.of();
	}

}
