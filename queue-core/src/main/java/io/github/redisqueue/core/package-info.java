/**
 * Job model, the producer and pull APIs ({@link io.github.redisqueue.core.QueueOperations},
 * implemented for Redis by {@link io.github.redisqueue.core.QueueTemplate}) and administration
 * ({@link io.github.redisqueue.core.QueueAdminOperations}, implemented by
 * {@link io.github.redisqueue.core.QueueAdmin} on a template).
 */
@NullMarked
package io.github.redisqueue.core;

import org.jspecify.annotations.NullMarked;
