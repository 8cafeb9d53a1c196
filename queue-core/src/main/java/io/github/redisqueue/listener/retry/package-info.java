/**
 * Failures in a listener container: whether a failed job is retried after the listener's
 * back-off (it waits in the delayed set; no thread sleeps) or dead-lettered, and the call of the
 * application's dead-letter callback.
 *
 * <p>Internal parts of {@link io.github.redisqueue.listener.QueueListenerContainer}; not API; may
 * change in any release.
 */
@NullMarked
package io.github.redisqueue.listener.retry;

import org.jspecify.annotations.NullMarked;
