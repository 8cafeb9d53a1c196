/**
 * Micrometer support: queue depth gauges.
 */
@NullMarked
package io.github.redisqueue.support.micrometer;

import org.jspecify.annotations.NullMarked;
