package io.github.redisqueue.actuate.endpoint;

import java.time.Instant;

import io.github.redisqueue.core.BatchState;
import io.github.redisqueue.core.BatchStatus;
import org.jspecify.annotations.Nullable;

/**
 * A batch and its progress as the {@code queues} endpoint shows it.
 *
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
 * @param createdAt when it was opened
 * @param finishedAt when it finished, or {@code null}
 * @param completionQueue the queue its completion job goes to, or {@code null}
 * @since 0.1.0
 */
public record BatchDescriptor(String id, BatchState state, int maxConcurrency, int priority, long total,
		long waiting, long active, long completed, long dead, long cancelled, Instant createdAt,
		@Nullable Instant finishedAt, @Nullable String completionQueue) {

	static BatchDescriptor of(BatchStatus batch) {
		return new BatchDescriptor(batch.id(), batch.state(), batch.maxConcurrency(), batch.priority(), batch.total(),
				batch.waiting(), batch.active(), batch.completed(), batch.dead(), batch.cancelled(), batch.createdAt(),
				batch.finishedAt(), batch.completionQueue());
	}

}
