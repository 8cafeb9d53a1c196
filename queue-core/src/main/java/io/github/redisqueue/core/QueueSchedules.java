package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.script.QueueKeys;
import org.jspecify.annotations.Nullable;

import static io.github.redisqueue.core.script.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.script.ScriptArgs.encodeNumber;
import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;
import static io.github.redisqueue.core.script.ScriptReplies.asLong;
import static io.github.redisqueue.core.script.ScriptReplies.text;

/**
 * The Redis side of recurring jobs: each tick of a schedule is fired by one script call on the
 * target queue's keys, which checks the schedule's last handled tick, applies the missed-tick
 * policy, records the tick and enqueues the job, all atomically and by the Redis server clock. So
 * any number of instances may fire the same tick: one job is enqueued. The schedule's state is a
 * field of the hash {@code {prefix:queue}:schedules} (schedule name → last tick in epoch ms), in
 * the queue's hash tag; a partitioned queue holds it in the partition of the schedule's name.
 *
 * @since 0.1.0
 */
public class QueueSchedules {

	/** Job header naming the schedule that enqueued the job. */
	public static final String SCHEDULE_HEADER = "queue-schedule";

	/** Job header holding the tick the job was enqueued for (ISO-8601 instant, server clock). */
	public static final String TICK_HEADER = "queue-schedule-tick";

	private static final byte[] PEEK = encodeAscii("peek");

	private static final byte[] FIRE = encodeAscii("fire");

	private static final byte[] PASS = encodeAscii("pass");

	private final QueueContext context;

	/**
	 * Recurring jobs enqueued with a template's connection, serializer and settings.
	 * @param template the template
	 */
	public QueueSchedules(QueueTemplate template) {
		this.context = template.context();
	}

	/**
	 * Read the Redis server time and the last tick a schedule handled, writing nothing.
	 * @param queue the target queue
	 * @param schedule the schedule name
	 * @return the server time and last tick
	 */
	public ScheduleFiring.State peek(String queue, String schedule) {
		QueueKeys k = keys(queue, schedule);
		List<Object> reply = this.context.executor().runWithin(this.context.executor().scripts().schedule(), k,
				List.of(stateKey(k)), List.of(PEEK, encodeUtf8(schedule)), this.context.enqueueTimeout());
		String last = text(reply.get(1));
		return new ScheduleFiring.State(Instant.ofEpochMilli(asLong(reply.get(0))),
				last.isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(last)));
	}

	/**
	 * Fire a tick of a schedule: enqueue its job unless the tick was handled already (by any
	 * instance), following the missed-tick policy.
	 * @param queue the target queue
	 * @param schedule the schedule name
	 * @param tick the tick, at or before the server time
	 * @param previousTick the schedule's tick before {@code tick}, if it has one
	 * @param missed what to do with missed ticks
	 * @param grace how late a tick may be fired and still be on time
	 * @param payload the serialized payload
	 * @return the outcome
	 */
	public ScheduleFiring fire(String queue, String schedule, Instant tick, @Nullable Instant previousTick,
			MissedTicks missed, Duration grace, byte[] payload) {
		if (payload.length > this.context.settings().maxPayloadBytes()) {
			throw new PayloadTooLargeException(queue, payload.length, this.context.settings().maxPayloadBytes());
		}
		QueueKeys k = keys(queue, schedule);
		this.context.register(k);
		long before = (previousTick != null) ? previousTick.toEpochMilli() : 0;
		List<byte[]> args = List.of(FIRE, encodeUtf8(schedule), encodeNumber(tick.toEpochMilli()), encodeNumber(before),
				encodeAscii(missed.value()), encodeNumber(grace.toMillis()),
				encodeNumber(this.context.settings().defaultMaxAttempts()), headers(schedule, tick),
				(previousTick != null) ? headers(schedule, previousTick) : headers(schedule, tick), payload);
		List<Object> reply = this.context.executor().runWithin(this.context.executor().scripts().schedule(), k,
				List.of(stateKey(k)), args, this.context.enqueueTimeout());
		Instant now = Instant.ofEpochMilli(asLong(reply.get(0)));
		ScheduleFiring.Outcome outcome = switch (text(reply.get(1))) {
			case "fired" -> ScheduleFiring.Outcome.FIRED;
			case "handled" -> ScheduleFiring.Outcome.HANDLED;
			default -> ScheduleFiring.Outcome.LATE;
		};
		Map<Instant, String> jobs = new LinkedHashMap<>();
		for (int i = 2; i + 1 < reply.size(); i += 2) {
			jobs.put(Instant.ofEpochMilli(asLong(reply.get(i))), text(reply.get(i + 1)));
		}
		if (!jobs.isEmpty()) {
			this.context.record(queue, JobOutcome.ENQUEUED, jobs.size());
		}
		return new ScheduleFiring(now, outcome, jobs);
	}

	/**
	 * Record a tick as handled without enqueueing a job (its payload source had none for it), so
	 * that it does not count as missed later.
	 * @param queue the target queue
	 * @param schedule the schedule name
	 * @param tick the tick, at or before the server time
	 */
	public void pass(String queue, String schedule, Instant tick) {
		QueueKeys k = keys(queue, schedule);
		this.context.executor().runWithin(this.context.executor().scripts().schedule(), k, List.of(stateKey(k)),
				List.of(PASS, encodeUtf8(schedule), encodeNumber(tick.toEpochMilli())), this.context.enqueueTimeout());
	}

	/**
	 * The hash holding the last ticks of a queue's schedules (of the partition of this schedule).
	 * @param queue the target queue
	 * @param schedule the schedule name
	 * @return the key's full name
	 */
	public String stateKey(String queue, String schedule) {
		return keys(queue, schedule).key("schedules");
	}

	private QueueKeys keys(String queue, String schedule) {
		return this.context.partitioning().keysForNew(queue, schedule);
	}

	private static byte[] stateKey(QueueKeys k) {
		return encodeUtf8(k.key("schedules"));
	}

	private byte[] headers(String schedule, Instant tick) {
		return this.context.serializer()
			.serializeHeaders(Map.of(SCHEDULE_HEADER, schedule, TICK_HEADER, tick.toString()));
	}

}
