package io.github.redisqueue.core;

import java.time.Duration;
import java.util.Map;

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
 * expired, reaped, duplicates, cancelled, batchesOpened, batchesCompleted, batchesCancelled; and
 * the current number of jobs of batches and groups waiting for a place ({@code batchWaiting},
 * {@code groupWaiting}) and admitted ({@code batchActive}, {@code groupActive}), also read through
 * the methods of this type
 * @param headAge how long the job at the head of the queue (the next to run: the oldest of the
 * highest priority) has been ready, by the Redis clock; {@code null} when no job is ready
 * @param throughput jobs completed per second over about the last minute (50 to 60 seconds, in
 * buckets of 10 seconds), across every consumer of the queue
 * @since 0.1.0
 */
public record QueueCounts(String queue, long ready, long delayed, long inFlight, long dead, long completed,
		boolean paused, Map<String, Long> totals, @Nullable Duration headAge, double throughput) {

	/**
	 * Jobs that still have to run: ready, delayed, in flight, and those waiting at their batch or
	 * group for a place.
	 */
	public long pending() {
		return this.ready + this.delayed + this.inFlight + batchJobsWaiting() + groupJobsWaiting();
	}

	/** One running total, 0 when it never moved. */
	public long total(String name) {
		return this.totals.getOrDefault(name, 0L);
	}

	/**
	 * Sub-jobs of batches waiting at their batch for a place within its cap; they are in none of
	 * the other states until admitted.
	 */
	public long batchJobsWaiting() {
		return level("batchWaiting");
	}

	/**
	 * Sub-jobs of batches admitted within their cap: ready, in flight or waiting for a retry
	 * (they count in those states too).
	 */
	public long batchJobsActive() {
		return level("batchActive");
	}

	/**
	 * Jobs of groups waiting for a place within their group's concurrency; they are in none of the
	 * other states until admitted.
	 */
	public long groupJobsWaiting() {
		return level("groupWaiting");
	}

	/**
	 * Jobs of groups admitted within their group's concurrency: ready, in flight or waiting for a
	 * retry (they count in those states too).
	 */
	public long groupJobsActive() {
		return level("groupActive");
	}

	/**
	 * Batches opened and not finished yet: open, sealed or being cancelled.
	 */
	public long openBatches() {
		return Math.max(0, total("batchesOpened") - total("batchesCompleted") - total("batchesCancelled"));
	}

	private long level(String name) {
		return Math.max(0, total(name));
	}

}
