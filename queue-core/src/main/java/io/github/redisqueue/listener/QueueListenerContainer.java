package io.github.redisqueue.listener;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueNames;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.ack.AckBatcher;
import io.github.redisqueue.listener.fetch.FetchLoop;
import io.github.redisqueue.listener.fetch.RunningJob;
import io.github.redisqueue.listener.lease.LeaseKeeper;
import io.github.redisqueue.listener.retry.FailureHandler;
import io.github.redisqueue.support.micrometer.QueueListenerContext;
import io.github.redisqueue.support.micrometer.QueueListenerObservationConvention;
import io.github.redisqueue.support.micrometer.QueueObservation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.TaskExecutor;

/**
 * Runs one {@link JobListener} on one queue: a fetch loop, an executor of {@code concurrency}
 * threads, batched acknowledgements and a lease keeper, wired at start.
 *
 * <p>Starting needs no Redis: the fetch loop's first step gives back the leases the container's
 * own identity still holds (a restarted worker resumes its work at once), then it fetches; while
 * Redis does not answer it retries every poll interval. On stop it stops fetching, gives back the
 * jobs reserved ahead that never started (counting nothing), lets running jobs finish within the
 * shutdown timeout, acknowledges what finished and gives the jobs still running back to the queue
 * at once, each counted as lost (as a lease that ran out would be).
 *
 * @since 0.1.0
 */
public class QueueListenerContainer implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(QueueListenerContainer.class);

	private final String id;

	private final String queue;

	private final QueueTemplate template;

	private final JobListener listener;

	private final ContainerOptions options;

	private final @Nullable DeadLetterCallback deadLetterCallback;

	private final @Nullable TaskExecutor taskExecutor;

	private final ReentrantLock lifecycleLock = new ReentrantLock();

	private final Semaphore handlerPermits;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable QueueListenerObservationConvention observationConvention;

	private volatile boolean running;

	private volatile @Nullable Throwable failure;

	private @Nullable FetchLoop fetchLoop;

	private @Nullable Thread fetchThread;

	private @Nullable ExecutorService ownExecutor;

	private @Nullable ScheduledExecutorService leaseScheduler;

	private @Nullable AckBatcher acks;

	private @Nullable FailureHandler failures;

	/**
	 * @param id the container id, unique in the application; part of the lease identity
	 * @param queue the queue name
	 * @param template the engine
	 * @param listener the listener
	 * @param options the container options
	 * @param deadLetterCallback told about jobs this container dead-letters, if any
	 * @param taskExecutor runs the jobs; {@code null} for a fixed pool of {@code concurrency} threads
	 */
	public QueueListenerContainer(String id, String queue, QueueTemplate template, JobListener listener,
			ContainerOptions options, @Nullable DeadLetterCallback deadLetterCallback,
			@Nullable TaskExecutor taskExecutor) {
		QueueNames.validate(queue);
		this.id = id;
		this.queue = queue;
		this.template = template;
		this.listener = listener;
		this.options = options;
		this.deadLetterCallback = deadLetterCallback;
		this.taskExecutor = taskExecutor;
		this.handlerPermits = new Semaphore(options.concurrency());
	}

	/**
	 * Observe each listener invocation (handler duration and outcome as a timer, a span when
	 * tracing is on).
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
	}

	/** Replace the default observation names and tags. */
	public void setObservationConvention(@Nullable QueueListenerObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	/** The container id. */
	public String getId() {
		return this.id;
	}

	/** The queue it consumes. */
	public String getQueue() {
		return this.queue;
	}

	/** Its options. */
	public ContainerOptions getOptions() {
		return this.options;
	}

	/** The identity recorded on the leases this container holds. */
	public String getWorkerId() {
		return this.template.getSettings().workerId() + "#" + this.id;
	}

	/** How many jobs run now. */
	public int getRunningJobs() {
		FetchLoop loop = this.fetchLoop;
		return (loop != null) ? loop.running().size() : 0;
	}

	@Override
	public boolean isAutoStartup() {
		return this.options.autoStartup();
	}

	@Override
	public final void start() {
		this.lifecycleLock.lock();
		try {
			if (!this.running) {
				doStart();
				this.running = true;
			}
		}
		finally {
			this.lifecycleLock.unlock();
		}
	}

	@Override
	public final void stop() {
		this.lifecycleLock.lock();
		try {
			if (this.running) {
				this.running = false;
				doStop();
			}
		}
		finally {
			this.lifecycleLock.unlock();
		}
	}

	@Override
	public void stop(Runnable callback) {
		try {
			stop();
		}
		finally {
			callback.run();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	protected void doStart() {
		// no Redis call here: an application starts while Redis is down; the take-back of the
		// leases this identity still holds is the fetch loop's first step, retried like any failure
		String workerId = getWorkerId();
		this.acks = new AckBatcher(this.template, this.queue);
		this.failures = new FailureHandler(this.template, this.queue, this.options, this.deadLetterCallback);
		java.util.concurrent.Executor executor = this.taskExecutor;
		if (executor == null) {
			this.ownExecutor = Executors.newFixedThreadPool(this.options.concurrency(), threads("queue-" + this.id + "-"));
			executor = this.ownExecutor;
		}
		FetchLoop loop = new FetchLoop(this.template, this.queue, workerId, this.options, executor, this::process,
				this.acks);
		this.fetchLoop = loop;
		// in every mode: jobs reserved ahead (prefetch) hold leases while they wait for a thread,
		// also in AT_MOST_ONCE, where a job stops being extended once it is completed at its start
		this.leaseScheduler = Executors.newSingleThreadScheduledExecutor(threads("queue-" + this.id + "-lease-"));
		long every = this.options.leaseExtensionInterval().toMillis();
		this.leaseScheduler.scheduleWithFixedDelay(
				new LeaseKeeper(this.template, this.queue, this.options.lease(), loop::running), every, every,
				TimeUnit.MILLISECONDS);
		// completions a failed call left behind go out with the fetch loop's next reserve; this
		// sends them when the loop does not carry them (it blocks, or it stopped)
		long poll = this.options.pollInterval().toMillis();
		this.leaseScheduler.scheduleWithFixedDelay(this.acks::retryPending, poll, poll, TimeUnit.MILLISECONDS);
		this.failure = null;
		Thread thread = threads("queue-" + this.id + "-fetch-").newThread(() -> fetch(loop));
		this.fetchThread = thread;
		thread.start();
		logger.debug("Started container '{}' on queue '{}' ({} threads)", this.id, this.queue,
				this.options.concurrency());
	}

	protected void doStop() {
		FetchLoop loop = this.fetchLoop;
		if (loop == null) {
			return;
		}
		loop.stopFetching();
		join(this.fetchThread);
		giveBackPrefetched(loop);
		boolean idle = loop.awaitIdle(this.options.shutdownTimeout());
		AckBatcher batcher = this.acks;
		if (batcher != null && !batcher.flush()) {
			logger.warn("Container '{}' could not send {} completions of queue '{}' before stopping; those jobs run "
					+ "again when their leases run out", this.id, batcher.pendingCount(), this.queue);
		}
		if (!idle) {
			// handlers still running: their jobs go back at once, each counted as lost (it ran
			// without an outcome), so a job that hangs at every shutdown ends dead after its max
			// attempts, and a started job no longer expires. Jobs that never started were given
			// back above, counting nothing.
			List<JobRef> unfinished = new ArrayList<>();
			for (RunningJob job : loop.running()) {
				// a job settled meanwhile is not interrupted: its thread may be sending acknowledgements
				if (job.hasStarted() && job.loseLease()) {
					unfinished.add(job.job().ref());
				}
			}
			if (!unfinished.isEmpty()) {
				try {
					this.template.releaseAll(this.queue, unfinished, true);
					logger.info("Container '{}' gave {} unfinished jobs back to queue '{}'", this.id, unfinished.size(),
							this.queue);
				}
				catch (RuntimeException ex) {
					logger.warn("Could not give back {} jobs of queue '{}'; they return when their leases run out",
							unfinished.size(), this.queue, ex);
				}
			}
		}
		if (this.leaseScheduler != null) {
			this.leaseScheduler.shutdownNow();
			this.leaseScheduler = null;
		}
		if (this.ownExecutor != null) {
			this.ownExecutor.shutdownNow();
			this.ownExecutor = null;
		}
		this.fetchLoop = null;
		this.fetchThread = null;
	}

	private void fetch(FetchLoop loop) {
		try {
			loop.run();
		}
		catch (Throwable ex) {
			// Redis failures are retried inside the loop: this is a call the engine refused as
			// invalid, an Error or a broken executor
			this.failure = ex;
			if (ex instanceof IllegalArgumentException) {
				logger.error("Container '{}' of queue '{}' stopped fetching: the engine refused its call as invalid "
						+ "(a configuration or programming error, not an outage); it takes no new jobs until it is "
						+ "restarted", this.id, this.queue, ex);
			}
			else {
				logger.error("Container '{}' of queue '{}' stopped fetching unexpectedly; it takes no new jobs until "
						+ "it is restarted", this.id, this.queue, ex);
			}
			giveBackPrefetched(loop);
		}
	}

	/**
	 * Why the container stopped fetching on its own while it should be running, if it did: its
	 * fetch loop ended on an error it cannot retry (jobs it had reserved but not started were
	 * given back). {@code null} while it works, and after a stop.
	 */
	public @Nullable Throwable getFailure() {
		return this.running ? this.failure : null;
	}

	private void giveBackPrefetched(FetchLoop loop) {
		List<JobRef> waiting = new ArrayList<>();
		for (RunningJob job : loop.running()) {
			if (job.abandonIfNotStarted()) {
				waiting.add(job.job().ref());
			}
		}
		if (!waiting.isEmpty()) {
			try {
				this.template.releaseAll(this.queue, waiting);
			}
			catch (RuntimeException ex) {
				logger.warn("Could not give back {} prefetched jobs of queue '{}'; they return when their leases run out",
						waiting.size(), this.queue, ex);
			}
		}
	}

	private void process(RunningJob running) {
		FetchLoop loop = this.fetchLoop;
		try {
			this.handlerPermits.acquire();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			if (loop != null) {
				loop.finished(running);
			}
			return;
		}
		try {
			if (running.started(Thread.currentThread())) {
				run(running);
			}
		}
		finally {
			// no interrupt can reach this thread once the job is marked finished; then clear any
			// that arrived before, so the pooled thread starts its next job clean
			running.finished();
			Thread.interrupted();
			this.handlerPermits.release();
			if (loop != null) {
				loop.finished(running);
			}
		}
	}

	private void run(RunningJob running) {
		ReservedJob job = running.job();
		AcknowledgementMode mode = this.options.acknowledgementMode();
		DefaultAcknowledgement ack = new DefaultAcknowledgement(this.template, this.queue, running, this.failures);
		if (mode == AcknowledgementMode.AT_MOST_ONCE && !completeAtStart(running)) {
			return;
		}
		try {
			invoke(job, ack);
			boolean unsettled = mode == AcknowledgementMode.ON_SUCCESS || mode == AcknowledgementMode.ALWAYS
					|| (mode == AcknowledgementMode.MANUAL && !ack.isSettled());
			// one step: either the lease was lost before, or no interrupt can reach this thread now
			if (unsettled && !running.stopExtending()) {
				logger.warn("Job {} of queue '{}' finished after its lease was lost; not acknowledged", job.id(),
						this.queue);
			}
			else if (mode == AcknowledgementMode.ON_SUCCESS || mode == AcknowledgementMode.ALWAYS) {
				this.acks.complete(job.ref());
			}
			else if (unsettled) {
				logger.warn("Listener of queue '{}' returned without settling job {}; it runs again when its lease ends",
						this.queue, job.id());
			}
		}
		catch (Throwable ex) {
			failed(running, ack, ex);
		}
	}

	/**
	 * Complete a job before its handler runs (mode AT_MOST_ONCE). Only a completion Redis
	 * accepted lets the handler run: a refused one means the job was handed to someone else
	 * since (or is gone), and an unanswered one may or may not have been recorded.
	 */
	private boolean completeAtStart(RunningJob running) {
		ReservedJob job = running.job();
		if (!running.stopExtending()) {
			logger.warn("Job {} of queue '{}' not run (mode AT_MOST_ONCE): its lease was lost before it started",
					job.id(), this.queue);
			return false;
		}
		AckResult result;
		try {
			result = this.template.complete(this.queue, job.ref());
		}
		catch (RuntimeException ex) {
			logger.warn("Job {} of queue '{}' not run (mode AT_MOST_ONCE): its completion before the start failed; "
					+ "it is delivered again if the completion was not recorded", job.id(), this.queue, ex);
			return false;
		}
		if (result != AckResult.OK) {
			logger.warn("Job {} of queue '{}' not run (mode AT_MOST_ONCE): its completion before the start was refused "
					+ "({}): {}", job.id(), this.queue, result, (result == AckResult.STALE_TOKEN)
							? "its lease ran out and someone else reserved it since" : "the job no longer exists");
			return false;
		}
		return true;
	}

	private void invoke(ReservedJob job, DefaultAcknowledgement ack) throws Exception {
		Observation observation = QueueObservation.LISTENER.observation(this.observationConvention,
				QueueListenerObservationConvention.DEFAULT, () -> new QueueListenerContext(job, this.id),
				this.observationRegistry);
		observation.start();
		try (Observation.Scope scope = observation.openScope()) {
			this.listener.onJob(job, ack);
		}
		catch (Exception | Error ex) {
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	private void failed(RunningJob running, DefaultAcknowledgement ack, Throwable ex) {
		ReservedJob job = running.job();
		if (!running.stopExtending()) {
			logger.warn("Job {} of queue '{}' failed after its lease was lost: {}", job.id(), this.queue, ex.toString());
			return;
		}
		switch (this.options.acknowledgementMode()) {
			case ALWAYS -> {
				logger.error("Listener of queue '{}' failed on job {}; completing it anyway (mode ALWAYS)", this.queue,
						job.id(), ex);
				this.acks.complete(job.ref());
			}
			case AT_MOST_ONCE -> {
				logger.error("Listener of queue '{}' failed on job {}; not retried (mode AT_MOST_ONCE)", this.queue,
						job.id(), ex);
				this.failures.deadLettered(job, ex);
			}
			case MANUAL -> {
				if (!ack.isSettled()) {
					this.failures.handle(job, ex);
				}
			}
			default -> this.failures.handle(job, ex);
		}
	}

	private static void join(@Nullable Thread thread) {
		if (thread == null) {
			return;
		}
		try {
			thread.join(TimeUnit.SECONDS.toMillis(10));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static ThreadFactory threads(String prefix) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
			thread.setDaemon(false);
			return thread;
		};
	}

	@Override
	public String toString() {
		return "QueueListenerContainer[id=" + this.id + ", queue=" + this.queue + "]";
	}

}
