/**
 * The engine's API: the job model and its value types, the producer and pull APIs
 * ({@link io.github.redisqueue.core.QueueOperations}, implemented for Redis by
 * {@link io.github.redisqueue.core.QueueTemplate}), administration
 * ({@link io.github.redisqueue.core.QueueAdminOperations}, implemented by
 * {@link io.github.redisqueue.core.QueueAdmin} on a template), batches
 * ({@link io.github.redisqueue.core.Batch}, {@link io.github.redisqueue.core.BatchBuilder}), the
 * firing of recurring jobs' ticks ({@link io.github.redisqueue.core.QueueSchedules}), the settings
 * ({@link io.github.redisqueue.core.QueueSettings}, {@link io.github.redisqueue.core.PerQueueSettings})
 * and the Lua scripts they run ({@link io.github.redisqueue.core.QueueScripts}).
 *
 * <p>The template and the admin are façades: they delegate to internal packages, which never
 * reach back to them: {@code core.enqueue} (enqueue path), {@code core.reserve} (reserve path),
 * {@code core.batch} (batches), {@code core.partition} (partitioned queues), {@code core.wakeup}
 * (waking fetch loops), {@code core.engine} (what the parts share) and {@code core.script} (the
 * scripts, keys, arguments and replies). The Micrometer meters are in {@code core.metrics}.
 */
@NullMarked
package io.github.redisqueue.core;

import org.jspecify.annotations.NullMarked;
