/**
 * Listener container part: lease.
 */
@NullMarked
package io.github.redisqueue.listener.lease;

import org.jspecify.annotations.NullMarked;
