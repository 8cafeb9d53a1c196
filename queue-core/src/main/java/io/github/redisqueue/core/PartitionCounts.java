package io.github.redisqueue.core;

/**
 * The counts of one partition of a queue, and where its keys live.
 *
 * @param name the partition's name, {@code queue~index} (the queue name for a queue of one
 * partition)
 * @param index the partition's index, from 0
 * @param hashTag the hash tag its keys share (without braces)
 * @param slot the Redis Cluster slot of that hash tag
 * @param counts its counts
 * @since 0.1.0
 */
public record PartitionCounts(String name, int index, String hashTag, int slot, QueueCounts counts) {

}
