/**
 * Auto-configuration of the {@code queues} Actuator endpoint.
 */
@NullMarked
package io.github.redisqueue.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
