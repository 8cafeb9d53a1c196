package io.github.redisqueue.dashboard;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.github.redisqueue.core.QueueHistory;

/**
 * The per-minute histories of the queues (kept in Redis by the scripts, so every instance serving
 * the dashboard draws the same), read for the overview's small charts at most once per
 * {@code maxAgeMillis} per queue: the overview refreshes every few seconds, a chart of 24 hours
 * moves by the minute. A queue's own page reads its history afresh. Thread safe.
 */
final class DashboardHistory {

	private final long maxAgeMillis;

	private final Map<String, Read> reads = new ConcurrentHashMap<>();

	DashboardHistory(long maxAgeMillis) {
		this.maxAgeMillis = Math.max(1000, maxAgeMillis);
	}

	/** The history of a queue, read with {@code reader} unless the last read is recent. */
	QueueHistory of(String queue, long now, Function<String, QueueHistory> reader) {
		Read last = this.reads.get(queue);
		if (last != null && now - last.at() < this.maxAgeMillis && now >= last.at()) {
			return last.history();
		}
		QueueHistory history = reader.apply(queue);
		this.reads.put(queue, new Read(now, history));
		return history;
	}

	/** Forgets the queues that are not listed any more. */
	void retain(Set<String> queues) {
		this.reads.keySet().retainAll(queues);
	}

	private record Read(long at, QueueHistory history) {
	}

}
