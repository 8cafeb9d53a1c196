/**
 * Auto-configuration of queue metrics: depth gauges per queue and job outcome counters on the
 * application's meter registry.
 */
@NullMarked
package io.github.redisqueue.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
