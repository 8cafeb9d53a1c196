/**
 * The Micrometer meters of the queues: gauges and counters read from Redis
 * ({@link io.github.redisqueue.core.metrics.QueueMetricsBinder}) and job outcome counters and wait
 * timers ({@link io.github.redisqueue.core.metrics.MicrometerJobEvents}); the only types of the
 * engine that need micrometer-core.
 */
@NullMarked
package io.github.redisqueue.core.metrics;

import org.jspecify.annotations.NullMarked;
