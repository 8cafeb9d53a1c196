/**
 * The enqueue path ({@code JobEnqueuer}): serialization and the payload size limit, the
 * observation of each call, idempotent, durable and bulk enqueues, the spread of a partitioned
 * queue's jobs over its partitions, and the enqueues deferred until a Spring transaction commits
 * ({@code AfterCommitEnqueues}).
 *
 * <p><b>Internal: not API, may change without notice.</b> Only the engine (the other packages
 * under {@code io.github.redisqueue.core}) uses it; the parts below the template never reach back
 * to {@link io.github.redisqueue.core.QueueTemplate} or {@link io.github.redisqueue.core.QueueAdmin}.
 */
@NullMarked
package io.github.redisqueue.core.enqueue;

import org.jspecify.annotations.NullMarked;
