/**
 * Partitioned queues: which partitions a queue has, where a new job, a job id or a batch id goes,
 * the turn of the partitions and which of them answer lately ({@code QueuePartitions}), and the
 * routing key of a job ({@code JobRouting}).
 *
 * <p><b>Internal: not API, may change without notice.</b> Only the engine (the other packages
 * under {@code io.github.redisqueue.core}) uses it; the parts below the template never reach back
 * to {@link io.github.redisqueue.core.QueueTemplate} or {@link io.github.redisqueue.core.QueueAdmin}.
 */
@NullMarked
package io.github.redisqueue.core.partition;

import org.jspecify.annotations.NullMarked;
