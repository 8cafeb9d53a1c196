package io.github.redisqueue.listener.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;

import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.ReapResult;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/**
 * Runs the engine's reaper pass over every known queue on a schedule. Correctness never
 * depends on it (reserving reclaims expired leases too); it makes returns prompt on queues
 * nobody is reserving from, and purges completed and dead jobs past their retention.
 *
 * <p>A pass runs every {@code interval} (the constructor's), scheduled one of two ways, never
 * both: given a {@link TaskScheduler} with {@link #setTaskScheduler}, the reaper schedules itself
 * on it while running; without one, it registers its passes with the application's
 * {@code @EnableScheduling} infrastructure as a {@link SchedulingConfigurer}, so they run on the
 * application's scheduler. Either way the reaper never switches scheduling on for the whole
 * application.
 *
 * @since 0.1.0
 */
public class QueueReaper implements SmartLifecycle, SchedulingConfigurer {

	/** Default time between passes. */
	public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);

	private static final Logger logger = LoggerFactory.getLogger(QueueReaper.class);

	private final QueueAdminOperations operations;

	private final Duration interval;

	private @Nullable TaskScheduler taskScheduler;

	private @Nullable ScheduledFuture<?> task;

	private volatile boolean running;

	private volatile long passes;

	/**
	 * Create a reaper.
	 * @param operations the engine
	 * @param interval time between passes
	 */
	public QueueReaper(QueueAdminOperations operations, Duration interval) {
		this.operations = operations;
		this.interval = interval;
	}

	/**
	 * Schedule passes on this scheduler while running, instead of on the application's
	 * {@code @EnableScheduling} scheduler.
	 * @param taskScheduler the scheduler, or {@code null} to leave scheduling to the application
	 */
	public void setTaskScheduler(@Nullable TaskScheduler taskScheduler) {
		this.taskScheduler = taskScheduler;
	}

	/**
	 * Whether the reaper schedules itself.
	 * @return whether it was given a scheduler of its own
	 */
	public boolean isSelfScheduled() {
		return this.taskScheduler != null;
	}

	/**
	 * Passes run so far.
	 * @return the number of passes
	 */
	public long getPasses() {
		return this.passes;
	}

	/**
	 * Time between passes.
	 * @return the interval
	 */
	public Duration getInterval() {
		return this.interval;
	}

	/**
	 * Registers a pass every {@link #getInterval() interval} with the application's scheduler,
	 * unless the reaper schedules itself.
	 * @param registrar the application's task registrar
	 */
	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		if (this.taskScheduler == null) {
			registrar.addFixedDelayTask(new FixedDelayTask(this::reap, this.interval, this.interval));
		}
	}

	/**
	 * One pass over every known queue while running. Failures are logged; the next pass tries
	 * again.
	 * @return what it did
	 */
	public ReapResult reap() {
		if (!this.running) {
			return ReapResult.NONE;
		}
		try {
			ReapResult result = this.operations.reapOnce();
			this.passes++;
			if (!result.isEmpty()) {
				logger.debug("Reaper pass: {}", result);
			}
			return result;
		}
		catch (RuntimeException ex) {
			logger.warn("Reaper pass failed; the next one tries again", ex);
			return ReapResult.NONE;
		}
	}

	@Override
	public void start() {
		this.running = true;
		if (this.taskScheduler != null && this.task == null) {
			this.task = this.taskScheduler.scheduleWithFixedDelay(this::reap,
					Instant.now().plus(this.interval), this.interval);
		}
	}

	@Override
	public void stop() {
		this.running = false;
		if (this.task != null) {
			this.task.cancel(false);
			this.task = null;
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
