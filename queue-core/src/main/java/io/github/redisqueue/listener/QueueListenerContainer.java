package io.github.redisqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redisqueue.core.QueueNames;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.ack.AckBatcher;
import io.github.redisqueue.listener.ack.AcknowledgementHandler;
import io.github.redisqueue.listener.fetch.FetchLoop;
import io.github.redisqueue.listener.fetch.RunningJob;
import io.github.redisqueue.listener.lease.LeaseKeeper;
import io.github.redisqueue.listener.retry.FailureHandler;
import io.github.redisqueue.support.micrometer.QueueListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

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
 * <p>Threads, named after the container id: {@code queue-<id>-fetch-1} for the fetch loop,
 * {@code queue-<id>-lease-1} for lease extension, {@code queue-<id>-acks-1} for acknowledgements
 * that no reserve took within {@link AckBatcher#MAX_DELAY}, and {@code queue-<id>-1} and on for the jobs
 * unless a task executor is given.
 *
 * @since 0.1.0
 */
public class QueueListenerContainer implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(QueueListenerContainer.class);

	private final String id;

	private final String queue;

	private final QueueTemplate template;

	private final ContainerOptions options;

	private final @Nullable TaskExecutor taskExecutor;

	private final FailureHandler failures;

	private final JobProcessor processor;

	private final ReentrantLock lifecycleLock = new ReentrantLock();

	private volatile boolean running;

	private volatile @Nullable Run run;

	/**
	 * @param id the container id, unique in the application; part of the lease identity
	 * @param queue the queue name
	 * @param template the engine
	 * @param listener the listener
	 * @param options the container options
	 * @param deadLetterCallback told about jobs this container dead-letters, if any
	 * @param taskExecutor runs the jobs; {@code null} for a fixed pool of {@code concurrency} threads
	 * @throws IllegalArgumentException when the queue name is invalid
	 */
	public QueueListenerContainer(String id, String queue, QueueTemplate template, JobListener listener,
			ContainerOptions options, @Nullable DeadLetterCallback deadLetterCallback,
			@Nullable TaskExecutor taskExecutor) {
		this.id = id;
		this.queue = QueueNames.validate(queue);
		this.template = template;
		this.options = options;
		this.taskExecutor = taskExecutor;
		this.failures = new FailureHandler(template, queue, options, deadLetterCallback);
		this.processor = new JobProcessor(id, queue, template, listener, this.failures);
	}

	/**
	 * Observe each listener invocation (handler duration and outcome as a timer, a span when
	 * tracing is on).
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.processor.setObservationRegistry(observationRegistry);
	}

	/** Replace the default observation names and tags. */
	public void setObservationConvention(@Nullable QueueListenerObservationConvention observationConvention) {
		this.processor.setObservationConvention(observationConvention);
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
		Run current = this.run;
		return (current != null) ? current.loop().runningJobs().size() : 0;
	}

	/**
	 * How many jobs the container may hold now beyond its concurrency, reserved ahead for a free
	 * thread: the fixed prefetch, or where the adaptive one stands (see
	 * {@link ContainerOptions#prefetch()}); 0 while it is not running.
	 */
	public int getPrefetch() {
		Run current = this.run;
		return (current != null) ? current.loop().prefetch() : 0;
	}

	/**
	 * Why the container stopped fetching on its own while it should be running, if it did: its
	 * fetch loop ended on an error it cannot retry (jobs it had reserved but not started were
	 * given back). {@code null} while it works, and after a stop.
	 */
	public @Nullable Throwable getFailure() {
		Run current = this.run;
		return (this.running && current != null) ? current.loop().failure() : null;
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

	/**
	 * Reserve one job and run it on the calling thread, as the container's own threads run jobs:
	 * the same listener, acknowledgement mode, max attempts, retry back-off and dead letter; its
	 * completion is sent before this returns. Meant for tests that drive a listener one job at a
	 * time: the container must be stopped (or never started). Its lease is not extended: a job that
	 * runs longer than the lease may be taken back meanwhile.
	 * @return the job that ran, or empty when no job was ready
	 * @throws IllegalStateException while the container runs
	 */
	public Optional<ReservedJob> runOne() {
		this.lifecycleLock.lock();
		try {
			if (this.running) {
				throw new IllegalStateException("Container '" + this.id + "' is running: stop it before runOne()");
			}
			Integer maxAttempts = this.options.maxAttempts();
			List<ReservedJob> jobs = this.template
				.reserveBatch(this.queue, 1, this.options.lease(), getWorkerId(), List.of(),
						(maxAttempts != null) ? maxAttempts : 0)
				.jobs();
			if (jobs.isEmpty()) {
				return Optional.empty();
			}
			AckBatcher acks = new AckBatcher(this.template, this.queue, "queue-" + this.id + "-acks-1");
			try {
				RunningJob job = new RunningJob(jobs.get(0));
				if (job.started(Thread.currentThread())) {
					this.processor.process(job,
							AcknowledgementHandler.of(this.options.acknowledgementMode(), this.queue, this.template,
									acks, this.failures));
				}
				job.finished();
				if (!acks.flush()) {
					throw new IllegalStateException("Completion of job " + job.job().id() + " of queue '" + this.queue
							+ "' was not sent: Redis did not answer");
				}
			}
			finally {
				acks.close();
			}
			return Optional.of(jobs.get(0));
		}
		finally {
			this.lifecycleLock.unlock();
		}
	}

	/** Wire the parts of a run and start fetching. */
	protected void doStart() {
		// no Redis call here: an application starts while Redis is down; the take-back of the
		// leases this identity still holds is the fetch loop's first step, retried like any failure
		AckBatcher acks = new AckBatcher(this.template, this.queue, "queue-" + this.id + "-acks-1");
		AcknowledgementHandler acknowledgements = AcknowledgementHandler.of(this.options.acknowledgementMode(),
				this.queue, this.template, acks, this.failures);
		ThreadPoolTaskExecutor ownExecutor = null;
		TaskExecutor executor = this.taskExecutor;
		if (executor == null) {
			ownExecutor = new ThreadPoolTaskExecutor();
			ownExecutor.setCorePoolSize(this.options.concurrency());
			ownExecutor.setMaxPoolSize(this.options.concurrency());
			ownExecutor.setThreadNamePrefix("queue-" + this.id + "-");
			// started now, here: a job handed over on the Redis client's I/O thread never makes it start a thread
			ownExecutor.setPrestartAllCoreThreads(true);
			ownExecutor.initialize();
			executor = ownExecutor;
		}
		// the container's own pool queues every task and runs none on the thread that gives it: the jobs of a
		// reserve behind a wait go to it from the Redis client's I/O thread (a given executor may do either)
		FetchLoop loop = new FetchLoop(this.template, this.queue, getWorkerId(), this.options, executor,
				(job) -> this.processor.process(job, acknowledgements), acks, ownExecutor != null);
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setThreadNamePrefix("queue-" + this.id + "-lease-");
		scheduler.initialize();
		// in every mode: jobs reserved ahead (prefetch) hold leases while they wait for a thread,
		// also in AT_MOST_ONCE, where a job stops being extended once it is completed at its start
		Duration every = this.options.leaseExtensionInterval();
		scheduler.scheduleWithFixedDelay(
				new LeaseKeeper(this.template, this.queue, this.options.lease(), loop::runningJobs, acks::unconfirmed),
				Instant.now().plus(every), every);
		// completions a failed call left behind go out with the fetch loop's next reserve; this
		// sends them when the loop does not carry them (it blocks, or it stopped)
		Duration poll = this.options.pollInterval();
		scheduler.scheduleWithFixedDelay(acks::retryPending, Instant.now().plus(poll), poll);
		this.run = new Run(loop, acks, ownExecutor, scheduler);
		new SimpleAsyncTaskExecutor("queue-" + this.id + "-fetch-").execute(loop);
		logger.debug("Started container '{}' on queue '{}' ({} threads)", this.id, this.queue,
				this.options.concurrency());
	}

	/** Drain the fetch loop within the shutdown timeout, then end the run's threads. */
	protected void doStop() {
		Run current = this.run;
		if (current == null) {
			return;
		}
		current.loop().drain(this.options.shutdownTimeout());
		current.acks().close();
		current.scheduler().shutdown();
		if (current.ownExecutor() != null) {
			current.ownExecutor().shutdown();
		}
		this.run = null;
	}

	@Override
	public String toString() {
		return "QueueListenerContainer[id=" + this.id + ", queue=" + this.queue + "]";
	}

	/**
	 * What one run, from start to stop, consists of.
	 * @param loop the fetch loop, which also holds the jobs
	 * @param acks the acknowledgements in flight, and their timer
	 * @param ownExecutor the job threads, when the container made them
	 * @param scheduler lease extension and the resend of pending completions
	 */
	private record Run(FetchLoop loop, AckBatcher acks, @Nullable ThreadPoolTaskExecutor ownExecutor,
			ThreadPoolTaskScheduler scheduler) {
	}

}
