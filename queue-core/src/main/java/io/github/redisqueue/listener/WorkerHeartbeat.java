package io.github.redisqueue.listener;

import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.WorkerInfo;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Records this worker in Redis every interval: identity, host, queues, running jobs, start
 * time. An entry whose heartbeats stop (the process died) disappears after its time to live; on
 * a clean stop the entry is dropped at once. Heartbeats run on a daemon thread
 * {@code queue-heartbeat-1}.
 *
 * @since 0.1.0
 */
public class WorkerHeartbeat implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(WorkerHeartbeat.class);

	private final QueueAdminOperations operations;

	private final String workerId;

	private final Supplier<List<String>> queues;

	private final IntSupplier runningJobs;

	private final Duration interval;

	private final Duration timeToLive;

	private final String host;

	private @Nullable ThreadPoolTaskScheduler scheduler;

	private @Nullable Instant startedAt;

	// set by stop before it ends the heartbeats: a beat that fails then was interrupted by it
	private volatile boolean stopping;

	/**
	 * @param operations the engine
	 * @param workerId this worker's identity
	 * @param queues the queues it consumes now
	 * @param runningJobs how many jobs it runs now
	 * @param interval time between heartbeats
	 * @param timeToLive how long an entry lives without a heartbeat (more than the interval)
	 */
	public WorkerHeartbeat(QueueAdminOperations operations, String workerId, Supplier<List<String>> queues,
			IntSupplier runningJobs, Duration interval, Duration timeToLive) {
		if (timeToLive.compareTo(interval) <= 0) {
			throw new IllegalArgumentException(
					"Worker time to live " + timeToLive + " must be longer than the heartbeat interval " + interval);
		}
		this.operations = operations;
		this.workerId = workerId;
		this.queues = queues;
		this.runningJobs = runningJobs;
		this.interval = interval;
		this.timeToLive = timeToLive;
		this.host = hostName();
	}

	/** Send one heartbeat now. */
	public void beat() {
		try {
			this.operations.heartbeat(new WorkerInfo(this.workerId, this.host, this.queues.get(),
					this.runningJobs.getAsInt(), this.startedAt, null), this.timeToLive);
		}
		catch (RuntimeException ex) {
			if (this.stopping || Thread.currentThread().isInterrupted()) {
				// a beat the stop interrupted: the leave below takes the worker off the registry
				logger.debug("Worker heartbeat interrupted by the stop", ex);
				return;
			}
			logger.warn("Worker heartbeat failed; trying again in {}", this.interval, ex);
		}
	}

	@Override
	public synchronized void start() {
		if (this.scheduler != null) {
			return;
		}
		this.startedAt = Instant.now();
		this.stopping = false;
		ThreadPoolTaskScheduler heartbeats = new ThreadPoolTaskScheduler();
		heartbeats.setThreadNamePrefix("queue-heartbeat-");
		heartbeats.setDaemon(true);
		heartbeats.initialize();
		heartbeats.scheduleWithFixedDelay(this::beat, this.interval);
		this.scheduler = heartbeats;
	}

	@Override
	public synchronized void stop() {
		if (this.scheduler == null) {
			return;
		}
		this.stopping = true;
		this.scheduler.shutdown();
		this.scheduler = null;
		// a clean leave, so that the worker is not taken for one that died; bounded, because a
		// stop while Redis is gone must not wait for the client's command timeout
		WorkerInfo self = new WorkerInfo(this.workerId, this.host, this.queues.get(), 0, this.startedAt, null);
		SimpleAsyncTaskExecutor leaving = new SimpleAsyncTaskExecutor("queue-heartbeat-leave-");
		leaving.setDaemon(true);
		CompletableFuture<Void> leave = CompletableFuture.runAsync(() -> this.operations.leave(self), leaving);
		try {
			leave.get(this.interval.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.info("Could not remove worker {} from the registry; it is dropped {} after its last heartbeat",
					this.workerId, this.timeToLive);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.scheduler != null;
	}

	@Override
	public int getPhase() {
		// stop after the listener containers: the endpoint registry stops them in its phase,
		// DEFAULT_PHASE - 100, and this phase is lower, so it stops later
		return DEFAULT_PHASE - 200;
	}

	private static String hostName() {
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (Exception ex) {
			return "unknown";
		}
	}

}
