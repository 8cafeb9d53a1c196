/**
 * Spring Boot auto-configuration of redis-queue.
 */
@NullMarked
package io.github.redisqueue.autoconfigure;

import org.jspecify.annotations.NullMarked;
