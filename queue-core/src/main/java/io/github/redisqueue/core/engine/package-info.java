/**
 * What the parts of a template share ({@code QueueContext}: executor, serializer, settings,
 * partitioning, registry, job events), and the reads around them: handler results
 * ({@code JobResults}), pages of jobs for the administration ({@code JobPages}) and the worker
 * registry ({@code WorkerRegistry}).
 *
 * <p><b>Internal: not API, may change without notice.</b> Only the engine (the other packages
 * under {@code io.github.redisqueue.core}) uses it; the parts below the template never reach back
 * to {@link io.github.redisqueue.core.QueueTemplate} or {@link io.github.redisqueue.core.QueueAdmin}.
 */
@NullMarked
package io.github.redisqueue.core.engine;

import org.jspecify.annotations.NullMarked;
