/**
 * The {@code queues} Actuator endpoint: counts and dead letters per queue, and administrative
 * actions (pause, resume, retry or purge dead letters), with one descriptor type per response shape.
 */
@NullMarked
package io.github.redisqueue.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
