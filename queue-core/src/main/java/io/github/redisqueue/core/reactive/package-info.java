/**
 * The reactive producer behind {@link io.github.redisqueue.core.ReactiveQueueTemplate}: the same
 * scripts, arguments and reply decoders as the blocking template, sent through Spring Data Redis's
 * reactive API ({@code ReactiveRedisTemplate} on the driver's reactive connection), with the
 * layout check before the first script call and the registry of queue names done the same way
 * ({@code ReactiveScriptRunner}, {@code ReactiveRegistration}), enqueues ({@code ReactiveEnqueuer})
 * and batches ({@code ReactiveBatches}).
 *
 * <p><b>Internal: not API, may change without notice.</b> Only the engine (the other packages
 * under {@code io.github.redisqueue.core}) uses it; the parts below the template never reach back
 * to {@link io.github.redisqueue.core.QueueTemplate} or {@link io.github.redisqueue.core.QueueAdmin}.
 */
@NullMarked
package io.github.redisqueue.core.reactive;

import org.jspecify.annotations.NullMarked;
