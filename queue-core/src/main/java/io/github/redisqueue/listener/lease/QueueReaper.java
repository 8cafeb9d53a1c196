package io.github.redisqueue.listener.lease;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;

import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.ReapResult;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Runs the engine's reaper pass over every known queue on a schedule. Correctness never
 * depends on it (reserving reclaims expired leases too); it makes returns prompt on queues
 * nobody is reserving from, and purges completed and dead jobs past their retention.
 *
 * <p>Two ways to schedule it, never both: when the application uses {@code @EnableScheduling},
 * {@link #reap()} runs as a {@code @Scheduled} method every {@code queue.reaper.interval}; when
 * it does not, give the reaper a {@link TaskScheduler} of its own with
 * {@link #setTaskScheduler} and it schedules itself while running, so the application's own
 * {@code @Scheduled} methods are not switched on behind its back.
 *
 * @since 0.1.0
 */
public class QueueReaper implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(QueueReaper.class);

	private final QueueAdminOperations operations;

	private final Duration interval;

	private @Nullable TaskScheduler taskScheduler;

	private @Nullable ScheduledFuture<?> task;

	private volatile boolean running;

	private volatile long passes;

	/**
	 * @param operations the engine
	 * @param interval time between passes when self-scheduled
	 */
	public QueueReaper(QueueAdminOperations operations, Duration interval) {
		this.operations = operations;
		this.interval = interval;
	}

	/** Schedule passes on this scheduler while running, instead of through {@code @Scheduled}. */
	public void setTaskScheduler(@Nullable TaskScheduler taskScheduler) {
		this.taskScheduler = taskScheduler;
	}

	/** Whether the reaper schedules itself. */
	public boolean isSelfScheduled() {
		return this.taskScheduler != null;
	}

	/** Passes run so far. */
	public long getPasses() {
		return this.passes;
	}

	/**
	 * One pass over every known queue. Failures are logged; the next pass tries again.
	 * @return what it did
	 */
	@Scheduled(fixedDelayString = "${queue.reaper.interval:5s}", initialDelayString = "${queue.reaper.interval:5s}")
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
					java.time.Instant.now().plus(this.interval), this.interval);
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
