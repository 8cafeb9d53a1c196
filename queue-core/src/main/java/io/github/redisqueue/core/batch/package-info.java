/**
 * Batches behind {@link io.github.redisqueue.core.Batch} and
 * {@link io.github.redisqueue.core.BatchBuilder}: every call of the batch script
 * ({@code QueueBatches}) and the two ends of a finished batch, the hand-off of its completion job
 * and the futures watching it ({@code BatchCompletions}).
 *
 * <p><b>Internal: not API, may change without notice.</b> Only the engine (the other packages
 * under {@code io.github.redisqueue.core}) uses it; the parts below the template never reach back
 * to {@link io.github.redisqueue.core.QueueTemplate} or {@link io.github.redisqueue.core.QueueAdmin}.
 */
@NullMarked
package io.github.redisqueue.core.batch;

import org.jspecify.annotations.NullMarked;
