package io.github.redisqueue.actuate.endpoint;

import java.util.Map;

import io.github.redisqueue.core.QueueCounts;
import io.github.redisqueue.core.RateLimit;
import org.jspecify.annotations.Nullable;

/**
 * One queue as the {@code queues} endpoint shows it.
 *
 * @param ready jobs waiting
 * @param delayed jobs waiting for their due time
 * @param inFlight jobs under a lease
 * @param dead dead letters
 * @param completed completed jobs still retained
 * @param paused whether the queue is paused
 * @param totals the queue's counters, as {@link QueueCounts#totals()}
 * @param headAgeMillis how long the next job to run has been ready (0 when none is ready)
 * @param throughputPerSecond jobs completed per second over about the last minute, by every
 * consumer of the queue
 * @param openBatches batches opened and not finished yet (open, sealed or being cancelled)
 * @param rateLimit the queue's rate limit as this application is configured with it (such as
 * {@code 100/1s}, see {@link RateLimit}), or {@code null} when it has none
 * @since 0.1.0
 */
public record QueueDescriptor(long ready, long delayed, long inFlight, long dead, long completed, boolean paused,
		Map<String, Long> totals, long headAgeMillis, double throughputPerSecond, long openBatches,
		@Nullable String rateLimit) {

	static QueueDescriptor of(QueueCounts counts) {
		return of(counts, null);
	}

	static QueueDescriptor of(QueueCounts counts, @Nullable RateLimit rateLimit) {
		return new QueueDescriptor(counts.ready(), counts.delayed(), counts.inFlight(), counts.dead(),
				counts.completed(), counts.paused(), counts.totals(),
				(counts.headAge() != null) ? counts.headAge().toMillis() : 0,
				Math.round(counts.throughput() * 100) / 100.0, counts.openBatches(),
				(rateLimit != null) ? rateLimit.toString() : null);
	}

}
