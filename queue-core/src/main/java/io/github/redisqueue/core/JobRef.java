package io.github.redisqueue.core;

/**
 * A job id together with the fencing token of the lease under which it was reserved.
 *
 * @param id the job id
 * @param token the lease token handed out with the reservation
 * @since 0.1.0
 */
public record JobRef(String id, long token) {

}
