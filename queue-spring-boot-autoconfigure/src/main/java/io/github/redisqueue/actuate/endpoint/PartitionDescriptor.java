package io.github.redisqueue.actuate.endpoint;

import io.github.redisqueue.core.PartitionCounts;

/**
 * One partition of a partitioned queue as the {@code queues} endpoint shows it.
 *
 * @param name the partition's name, {@code queue~index}
 * @param hashTag the hash tag its keys share
 * @param slot the Redis Cluster slot of its keys
 * @param counts its counts
 * @since 0.1.0
 */
public record PartitionDescriptor(String name, String hashTag, int slot, QueueDescriptor counts) {

	static PartitionDescriptor of(PartitionCounts partition) {
		return new PartitionDescriptor(partition.name(), partition.hashTag(), partition.slot(),
				QueueDescriptor.of(partition.counts()));
	}

}
