/**
 * Job model, the producer and pull APIs ({@link io.github.redisqueue.core.QueueOperations}),
 * administration ({@link io.github.redisqueue.core.QueueAdminOperations}) and their Redis
 * implementation {@link io.github.redisqueue.core.QueueTemplate}.
 */
@NullMarked
package io.github.redisqueue.core;

import org.jspecify.annotations.NullMarked;
