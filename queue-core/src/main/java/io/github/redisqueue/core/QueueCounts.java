package io.github.redisqueue.core;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * Number of jobs per state in one queue, and the queue's running totals.
 *
 * @param queue the queue name
 * @param ready jobs waiting to be reserved
 * @param delayed jobs waiting for their due time
 * @param inFlight jobs reserved under a lease
 * @param dead jobs in the dead letters
 * @param completed completed jobs still retained
 * @param paused whether the queue is paused
 * @param totals running counters since the queue was created: enqueued, completed, failed, dead,
 * expired, reaped, duplicates, cancelled (sub-jobs of cancelled batches removed before they ran),
 * deleted (jobs an operator deleted, see {@link QueueAdminOperations#deleteJob}), batchesOpened,
 * batchesCompleted, batchesCancelled, rateLimited (reserve calls a rate limit cut short while
 * jobs were ready) and rateHeld (the ready jobs those calls asked for and did not get, summed over
 * the calls: a job asked for by several of them counts once per call)
 * @param headAge how long the job at the head of the queue (the next to run: the oldest of the
 * highest priority) has been ready, by the Redis clock; {@code null} when no job is ready
 * @param throughput jobs completed per second over about the last minute (50 to 60 seconds, in
 * buckets of 10 seconds), across every consumer of the queue
 * @since 0.1.0
 */
public record QueueCounts(String queue, long ready, long delayed, long inFlight, long dead, long completed,
		boolean paused, Map<String, Long> totals, @Nullable Duration headAge, double throughput) {

	/**
	 * Jobs that still have to run: ready, delayed and in flight. Jobs waiting at their batch or
	 * group for a place are in none of these states: a batch's {@link BatchStatus#waiting()}
	 * counts them.
	 */
	public long pending() {
		return this.ready + this.delayed + this.inFlight;
	}

	/**
	 * The counts of two partitions of one queue together: states, totals and throughput summed,
	 * paused when either is, the head age of the older head.
	 * @param other the counts of another partition of the same queue
	 * @return the sum
	 */
	public QueueCounts plus(QueueCounts other) {
		Map<String, Long> sum = new TreeMap<>(this.totals);
		other.totals.forEach((name, value) -> sum.merge(name, value, Long::sum));
		Duration age = this.headAge;
		if (other.headAge != null && (age == null || other.headAge.compareTo(age) > 0)) {
			age = other.headAge;
		}
		return new QueueCounts(this.queue, this.ready + other.ready, this.delayed + other.delayed,
				this.inFlight + other.inFlight, this.dead + other.dead, this.completed + other.completed,
				this.paused || other.paused, Collections.unmodifiableMap(sum), age, this.throughput + other.throughput);
	}

	/** One running total, 0 when it never moved. */
	public long total(String name) {
		return this.totals.getOrDefault(name, 0L);
	}

	/**
	 * Batches opened and not finished yet (open, sealed or being cancelled), from the running
	 * totals; {@link QueueAdminOperations#batches} lists them.
	 */
	public long openBatches() {
		return Math.max(0, total("batchesOpened") - total("batchesCompleted") - total("batchesCancelled"));
	}

}
