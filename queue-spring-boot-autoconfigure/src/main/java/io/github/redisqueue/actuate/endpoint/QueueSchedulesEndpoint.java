package io.github.redisqueue.actuate.endpoint;

import java.util.ArrayList;
import java.util.List;

import io.github.redisqueue.core.QueueNames;
import io.github.redisqueue.schedule.RecurringJobDefinition;
import io.github.redisqueue.schedule.RecurringJobScheduler;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code queueschedules} Actuator endpoint, read-only: the recurring jobs of this instance
 * with their last tick (handled by any instance) and their next tick, both by the Redis server
 * clock ({@code GET /actuator/queueschedules}), or those of one queue
 * ({@code GET /actuator/queueschedules/{queue}}). An endpoint of its own rather than a path below
 * {@code /actuator/queues/{name}}, where every read path is kept apart from the write paths and
 * where a queue of any valid name (such as {@code schedules}) must stay addressable.
 *
 * @since 0.1.0
 */
@Endpoint(id = "queueschedules", defaultAccess = Access.READ_ONLY)
public class QueueSchedulesEndpoint {

	private final RecurringJobScheduler scheduler;

	/**
	 * The endpoint of a scheduler's recurring jobs.
	 * @param scheduler the scheduler of this instance
	 */
	public QueueSchedulesEndpoint(RecurringJobScheduler scheduler) {
		this.scheduler = scheduler;
	}

	/**
	 * Every recurring job of this instance.
	 * @return each with its ticks, in declaration order
	 */
	@ReadOperation
	public List<ScheduleDescriptor> schedules() {
		return describe(null);
	}

	/**
	 * The recurring jobs of this instance that enqueue to one queue.
	 * @param queue the queue name
	 * @return each with its ticks, in declaration order
	 */
	@ReadOperation
	public List<ScheduleDescriptor> schedulesOf(@Selector String queue) {
		try {
			QueueNames.validate(queue);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage(), ex);
		}
		return describe(queue);
	}

	private List<ScheduleDescriptor> describe(@Nullable String queue) {
		List<ScheduleDescriptor> schedules = new ArrayList<>();
		for (RecurringJobDefinition definition : this.scheduler.getDefinitions()) {
			if (queue == null || definition.queue().equals(queue)) {
				schedules.add(ScheduleDescriptor.of(definition, this.scheduler.state(definition)));
			}
		}
		return schedules;
	}

}
