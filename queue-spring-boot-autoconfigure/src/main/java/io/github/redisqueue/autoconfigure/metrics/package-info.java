/**
 * redis-queue autoconfigure.metrics.
 */
@NullMarked
package io.github.redisqueue.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
