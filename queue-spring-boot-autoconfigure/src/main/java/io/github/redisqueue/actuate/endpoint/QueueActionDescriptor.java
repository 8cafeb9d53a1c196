package io.github.redisqueue.actuate.endpoint;

/**
 * What a write operation of the {@code queues} endpoint did.
 *
 * @param queue the queue
 * @param action the action
 * @param count for {@code retry-dead} and {@code purge-dead}, how many jobs it touched; for
 * {@code pause} and {@code resume}, 1 when the queue's state changed and 0 when it already was
 * paused or running; for {@code cancel-batch}, how many sub-jobs of the batch were removed before
 * they ran
 * @since 0.1.0
 */
public record QueueActionDescriptor(String queue, String action, long count) {

}
