package io.github.redisqueue.core;

/**
 * What an enqueue did.
 *
 * @param id the new job's id, or, for a duplicate, the id of the job that holds the uniqueness key
 * @param duplicate whether the job was refused because another job holds its uniqueness key
 * @since 0.1.0
 */
public record EnqueueResult(String id, boolean duplicate) {

}
