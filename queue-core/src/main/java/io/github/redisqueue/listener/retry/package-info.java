/**
 * Listener container part: retry.
 */
@NullMarked
package io.github.redisqueue.listener.retry;

import org.jspecify.annotations.NullMarked;
