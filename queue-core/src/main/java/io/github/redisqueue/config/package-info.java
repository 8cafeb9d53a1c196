/**
 * redis-queue config support.
 */
@NullMarked
package io.github.redisqueue.config;

import org.jspecify.annotations.NullMarked;
