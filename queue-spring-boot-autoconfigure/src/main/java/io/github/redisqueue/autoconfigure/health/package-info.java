/**
 * redis-queue autoconfigure.health.
 */
@NullMarked
package io.github.redisqueue.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
