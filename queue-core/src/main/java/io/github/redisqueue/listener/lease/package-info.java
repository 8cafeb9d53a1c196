/**
 * Leases: the lease keeper, which extends the leases of every job a container holds in one call
 * per interval and interrupts a handler whose lease was lost; and the
 * {@link io.github.redisqueue.listener.lease.QueueReaper}, which returns expired leases, promotes
 * due jobs and purges old ones on a schedule.
 *
 * <p>{@code QueueReaper} is public API. The other types are internal parts of
 * {@link io.github.redisqueue.listener.QueueListenerContainer}; not API; may change in any
 * release.
 */
@NullMarked
package io.github.redisqueue.listener.lease;

import org.jspecify.annotations.NullMarked;
