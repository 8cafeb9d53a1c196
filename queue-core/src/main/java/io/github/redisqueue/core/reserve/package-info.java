/**
 * The reserve path ({@code JobReserver}): the checks of a reserve call, the reserve script on a
 * queue of one partition, a reserve over the partitions of a partitioned one
 * ({@code PartitionedReserve}), and the outcomes, waits and finished batches the replies report.
 *
 * <p><b>Internal: not API, may change without notice.</b> Only the engine (the other packages
 * under {@code io.github.redisqueue.core}) uses it; the parts below the template never reach back
 * to {@link io.github.redisqueue.core.QueueTemplate} or {@link io.github.redisqueue.core.QueueAdmin}.
 */
@NullMarked
package io.github.redisqueue.core.reserve;

import org.jspecify.annotations.NullMarked;
