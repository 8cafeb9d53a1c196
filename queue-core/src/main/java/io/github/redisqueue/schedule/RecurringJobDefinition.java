package io.github.redisqueue.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.function.Function;

import io.github.redisqueue.core.MissedTicks;
import io.github.redisqueue.core.QueueNames;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;

/**
 * A recurring job: a name (unique per target queue; the schedule's state in Redis is kept under
 * it), the queue its jobs go to, a cron expression ({@link CronExpression} syntax, six fields,
 * seconds first) read in a time zone, the missed-tick policy, the grace within which a tick is on
 * time, and the payload of each tick's job, already serialized ({@code null}: no job for that tick).
 *
 * @param name the schedule name
 * @param queue the target queue
 * @param cron the cron expression
 * @param zone the time zone the expression is read in
 * @param missed what happens to missed ticks
 * @param grace how late after its tick (server clock) a tick may fire and still be on time
 * @param payload the serialized payload of a tick's job, from the tick; {@code null} for none
 * @since 0.1.0
 */
public record RecurringJobDefinition(String name, String queue, CronExpression cron, ZoneId zone, MissedTicks missed,
		Duration grace, Function<Instant, byte @Nullable []> payload) {

	/** Grace within which a tick is on time, unless set otherwise. */
	public static final Duration DEFAULT_GRACE = Duration.ofSeconds(10);

	/** Longest schedule name. */
	public static final int MAX_NAME_LENGTH = 200;

	/**
	 * Checks every value.
	 */
	public RecurringJobDefinition {
		if (name.isBlank() || name.length() > MAX_NAME_LENGTH) {
			throw new IllegalArgumentException(
					"Schedule name '" + name + "' is invalid: it must have 1 to " + MAX_NAME_LENGTH + " characters");
		}
		QueueNames.validate(queue);
		if (grace.isNegative() || grace.compareTo(Duration.ofDays(1)) > 0) {
			throw new IllegalArgumentException(
					"Grace " + grace + " of schedule '" + name + "' is out of range: it must be from 0 to 1 day");
		}
	}

	/**
	 * Parse a cron expression, with a message naming the schedule when it is invalid.
	 * @param name the schedule name
	 * @param expression the expression
	 * @return the parsed expression
	 * @throws IllegalArgumentException when it is invalid
	 */
	public static CronExpression parseCron(String name, String expression) {
		try {
			return CronExpression.parse(expression);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Cron expression '" + expression + "' of schedule '" + name
					+ "' is invalid (six fields, seconds first, e.g. '0 * * * * *'): " + ex.getMessage(), ex);
		}
	}

}
