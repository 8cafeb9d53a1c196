package io.github.redisqueue.actuate.endpoint;

import java.time.Instant;

import io.github.redisqueue.core.ScheduleFiring;
import io.github.redisqueue.schedule.RecurringJobDefinition;
import io.github.redisqueue.schedule.RecurringJobScheduler;
import org.jspecify.annotations.Nullable;

/**
 * One recurring job of this instance as the {@code queueschedules} endpoint shows it, with its ticks by
 * the Redis server clock.
 *
 * @param name the schedule name
 * @param queue the queue its jobs go to
 * @param cron the cron expression
 * @param zone the time zone it is read in
 * @param missed the missed-tick policy, {@code fire-once} or {@code skip}
 * @param graceMillis how late a tick may fire and still be on time, in milliseconds
 * @param lastTick the last tick handled (by any instance), {@code null} before the first
 * @param nextTick the next tick after the Redis server time, {@code null} if none comes
 * @since 0.1.0
 */
public record ScheduleDescriptor(String name, String queue, String cron, String zone, String missed, long graceMillis,
		@Nullable Instant lastTick, @Nullable Instant nextTick) {

	static ScheduleDescriptor of(RecurringJobDefinition definition, ScheduleFiring.State state) {
		return new ScheduleDescriptor(definition.name(), definition.queue(), definition.cron().toString(),
				definition.zone().getId(), definition.missed().value(), definition.grace().toMillis(), state.lastTick(),
				RecurringJobScheduler.nextTick(definition, state.serverTime()));
	}

}
