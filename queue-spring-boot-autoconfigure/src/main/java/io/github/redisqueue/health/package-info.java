/**
 * redis-queue health.
 */
@NullMarked
package io.github.redisqueue.health;

import org.jspecify.annotations.NullMarked;
