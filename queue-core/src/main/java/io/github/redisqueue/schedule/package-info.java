/**
 * Recurring jobs: schedules that enqueue one job per cron tick, cluster-wide, decided in Redis by
 * the server clock.
 */
@NullMarked
package io.github.redisqueue.schedule;

import org.jspecify.annotations.NullMarked;
