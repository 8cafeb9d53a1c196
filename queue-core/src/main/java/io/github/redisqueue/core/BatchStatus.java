package io.github.redisqueue.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The progress of a batch at one instant, read in one script call.
 *
 * @param queue the queue of its sub-jobs
 * @param id the batch id
 * @param state where it stands
 * @param maxConcurrency its cap: at most this many of its sub-jobs hold a lease at once
 * @param priority the priority of its sub-jobs
 * @param total sub-jobs added so far
 * @param waiting sub-jobs waiting for a place within the cap
 * @param active sub-jobs within the cap: running, ready to be taken, or waiting for a retry
 * @param completed sub-jobs completed
 * @param dead sub-jobs dead-lettered
 * @param cancelled sub-jobs removed by a cancellation before they ran
 * @param createdAt when it was opened (Redis clock)
 * @param finishedAt when it finished, or {@code null}
 * @param completionQueue the queue its completion job goes to, or {@code null}
 * @since 0.1.0
 */
public record BatchStatus(String queue, String id, BatchState state, int maxConcurrency, int priority, long total,
		long waiting, long active, long completed, long dead, long cancelled, Instant createdAt,
		@Nullable Instant finishedAt, @Nullable String completionQueue) {

	/** Sub-jobs that ended: completed, dead or cancelled. */
	public long ended() {
		return this.completed + this.dead + this.cancelled;
	}

	/** Whether the batch has finished (completed or cancelled). */
	public boolean isFinished() {
		return this.state.isFinished();
	}

}
