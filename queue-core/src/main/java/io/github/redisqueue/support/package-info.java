/**
 * redis-queue support support.
 */
@NullMarked
package io.github.redisqueue.support;

import org.jspecify.annotations.NullMarked;
