/**
 * redis-queue autoconfigure.endpoint.
 */
@NullMarked
package io.github.redisqueue.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
