package io.github.redisqueue.actuate.endpoint;

import java.util.List;

import io.github.redisqueue.core.WorkerInfo;

/**
 * One queue in detail: counts, a page of dead letters, a page of its open batches, and the live
 * workers consuming it.
 *
 * @param name the queue name
 * @param counts its counts
 * @param deadLetters a page of dead letters, most recent first
 * @param batches a page of its open batches with their progress, oldest first (how many there
 * are is {@code counts.openBatches})
 * @param workers live workers that consume it
 * @param partitions for a queue spread over partitions, each partition with its counts; empty
 * for a queue of one partition
 * @since 0.1.0
 */
public record QueueDetailsDescriptor(String name, QueueDescriptor counts, List<DeadJobDescriptor> deadLetters,
		List<BatchDescriptor> batches, List<WorkerInfo> workers, List<PartitionDescriptor> partitions) {

}
