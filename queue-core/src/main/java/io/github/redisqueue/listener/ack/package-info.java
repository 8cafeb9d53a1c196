/**
 * Acknowledgement in a listener container: one handler per
 * {@link io.github.redisqueue.listener.AcknowledgementMode}, deciding what becomes of a job
 * around its listener call, and the batching of completions, which go out with the fetch loop's
 * next reserve or in one call per idle moment.
 *
 * <p>Internal parts of {@link io.github.redisqueue.listener.QueueListenerContainer}; not API; may
 * change in any release.
 */
@NullMarked
package io.github.redisqueue.listener.ack;

import org.jspecify.annotations.NullMarked;
