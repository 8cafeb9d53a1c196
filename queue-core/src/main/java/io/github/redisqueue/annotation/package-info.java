/**
 * redis-queue annotation support.
 */
@NullMarked
package io.github.redisqueue.annotation;

import org.jspecify.annotations.NullMarked;
