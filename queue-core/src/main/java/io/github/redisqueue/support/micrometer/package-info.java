/**
 * Observation documentation, contexts and conventions of enqueue calls and listener invocations,
 * carrying trace context in the job headers. Depends on micrometer-observation only; the meters
 * (gauges and outcome counters) that need micrometer-core live in the core package.
 */
@NullMarked
package io.github.redisqueue.support.micrometer;

import org.jspecify.annotations.NullMarked;
