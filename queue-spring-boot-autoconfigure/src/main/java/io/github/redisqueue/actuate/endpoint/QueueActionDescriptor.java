package io.github.redisqueue.actuate.endpoint;

/**
 * What a write operation of the {@code queues} endpoint did.
 *
 * @param queue the queue
 * @param action the action
 * @param count how many jobs it touched (1 for pause and resume)
 * @since 0.1.0
 */
public record QueueActionDescriptor(String queue, String action, long count) {

}
