/**
 * redis-queue actuate.endpoint.
 */
@NullMarked
package io.github.redisqueue.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
