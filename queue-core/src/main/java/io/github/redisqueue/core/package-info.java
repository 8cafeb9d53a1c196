/**
 * The engine: the job model, the producer and pull APIs ({@link io.github.redisqueue.core.QueueOperations},
 * implemented for Redis by {@link io.github.redisqueue.core.QueueTemplate}), administration
 * ({@link io.github.redisqueue.core.QueueAdminOperations}, implemented by
 * {@link io.github.redisqueue.core.QueueAdmin} on a template), the Lua scripts they run
 * ({@link io.github.redisqueue.core.QueueScripts}), and the Micrometer meters of the queues
 * ({@link io.github.redisqueue.core.QueueMetricsBinder}, {@link io.github.redisqueue.core.MicrometerJobEvents}),
 * which are the only types here that need micrometer-core.
 */
@NullMarked
package io.github.redisqueue.core;

import org.jspecify.annotations.NullMarked;
