/**
 * Waking fetch loops: the list a loop blocks on for a queue of one partition ({@code ListWaiter})
 * and the pub/sub announcements of a partitioned queue ({@code QueueWakeups}), behind
 * {@link io.github.redisqueue.core.QueueWaiter}.
 *
 * <p><b>Internal: not API, may change without notice.</b> Only the engine (the other packages
 * under {@code io.github.redisqueue.core}) uses it; the parts below the template never reach back
 * to {@link io.github.redisqueue.core.QueueTemplate} or {@link io.github.redisqueue.core.QueueAdmin}.
 */
@NullMarked
package io.github.redisqueue.core.wakeup;

import org.jspecify.annotations.NullMarked;
