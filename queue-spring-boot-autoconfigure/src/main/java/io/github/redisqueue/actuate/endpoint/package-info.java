/**
 * The {@code queues} Actuator endpoint: counts, dead letters and open batches per queue, and
 * administrative actions (pause, resume, retry or purge dead letters, cancel a batch), with one
 * descriptor type per response shape.
 */
@NullMarked
package io.github.redisqueue.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
