package io.github.redisqueue.listener.fetch;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.QueueWaiter;
import io.github.redisqueue.core.Reservation;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.ack.AckBatcher;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single fetch loop of a container: it reserves as many jobs as there are free slots
 * (concurrency plus prefetch) in one call, hands them to the executor, and when the queue is empty blocks on Redis until a wake-up,
 * the next delayed job's due time, or the poll interval, whichever comes first. An idle loop
 * sends one blocking command per poll interval, plus one reserve per half lease so that leases
 * other workers left to expire are reclaimed even when no reaper runs. Its first step gives back
 * the leases its own identity still holds from a previous run. A call Redis does not answer is
 * retried every poll interval (completions it carried are kept for the next one); a call the
 * engine refuses as invalid ends the loop.
 *
 * @since 0.1.0
 */
public final class FetchLoop implements Runnable {

	private static final Logger logger = LoggerFactory.getLogger(FetchLoop.class);

	private final QueueTemplate template;

	private final String queue;

	private final String workerId;

	private final ContainerOptions options;

	private final Executor executor;

	private final Consumer<RunningJob> handler;

	private final AckBatcher acks;

	private final Semaphore slots;

	private final int permits;

	// by identity, not job id: a job given back and reserved again may run here twice for a moment
	private final Set<RunningJob> running = ConcurrentHashMap.newKeySet();

	private final CountDownLatch stopped = new CountDownLatch(1);

	// opened by the loop (not at start, so that a container starts while Redis is down); guarded
	// by this, so that a stop closes the one the loop may block on
	private @Nullable QueueWaiter waiter;

	// the take-back of this identity's own leases left by a previous run, done before the first
	// reserve and retried like any Redis failure
	private boolean ownLeasesTakenBack;

	private int failedFetches;

	private long lastFailureWarning;

	private final Duration reclaimEvery;

	// the listener's max attempts, written on the jobs it reserves; 0 keeps each job's own
	private final int maxAttempts;

	private volatile boolean active = true;

	private boolean reserveNext = true;

	private long lastReserve;

	private @Nullable Instant nextDue;

	// the Redis clock: nextDue is a server time
	private final ServerClock serverClock = new ServerClock();

	/**
	 * @param template the engine
	 * @param queue the queue name
	 * @param workerId the identity recorded on leases
	 * @param options the container options
	 * @param executor runs the jobs
	 * @param handler runs one job on the executor (and must call {@link #finished(RunningJob)})
	 * @param acks pending acknowledgements, sent along with each reserve
	 */
	public FetchLoop(QueueTemplate template, String queue, String workerId, ContainerOptions options, Executor executor,
			Consumer<RunningJob> handler, AckBatcher acks) {
		this.template = template;
		this.queue = queue;
		this.workerId = workerId;
		this.options = options;
		this.executor = executor;
		this.handler = handler;
		this.acks = acks;
		this.permits = options.concurrency() + options.effectivePrefetch();
		this.maxAttempts = (options.maxAttempts() != null) ? options.maxAttempts() : 0;
		this.slots = new Semaphore(this.permits);
		Duration halfLease = options.lease().dividedBy(2);
		this.reclaimEvery = (halfLease.compareTo(options.pollInterval()) > 0) ? halfLease : options.pollInterval();
	}

	@Override
	public void run() {
		this.acks.setCarried(true);
		try {
			while (this.active) {
				try {
					fetchOnce();
					recovered();
				}
				catch (RuntimeException ex) {
					if (isRefusedAsInvalid(ex)) {
						// a configuration or programming error that no retry cures: end the loop,
						// so that the container reports it
						throw ex;
					}
					if (!this.active) {
						break;
					}
					failed(ex);
					pause(this.options.pollInterval());
				}
			}
		}
		finally {
			this.acks.setCarried(false);
			closeWaiter();
		}
	}

	/** Log a failed fetch: the first of a run at WARN with its cause, then once a minute. */
	private void failed(RuntimeException ex) {
		this.failedFetches++;
		long now = System.nanoTime();
		if (this.failedFetches == 1) {
			this.lastFailureWarning = now;
			logger.warn("Fetching from queue '{}' failed; trying again every {}", this.queue,
					this.options.pollInterval(), ex);
		}
		else if (now - this.lastFailureWarning >= TimeUnit.MINUTES.toNanos(1)) {
			this.lastFailureWarning = now;
			logger.warn("Fetching from queue '{}' still fails after {} attempts: {}", this.queue, this.failedFetches,
					ex.toString());
		}
		else {
			logger.debug("Fetching from queue '{}' failed again", this.queue, ex);
		}
	}

	private void recovered() {
		if (this.failedFetches > 0) {
			logger.info("Fetching from queue '{}' works again after {} failed attempts", this.queue,
					this.failedFetches);
			this.failedFetches = 0;
		}
	}

	/**
	 * Give back the leases this identity still holds from a previous run (a restarted worker
	 * resumes that work at once); each counts as lost, as whether it had started is unknown.
	 */
	private void takeBackOwnLeases() {
		int resumed = this.template.releaseWorker(this.queue, this.workerId);
		this.ownLeasesTakenBack = true;
		if (resumed > 0) {
			logger.info("Took back {} unfinished jobs of queue '{}' held by {} from a previous run", resumed,
					this.queue, this.workerId);
		}
	}

	private synchronized @Nullable QueueWaiter waiter() {
		if (this.waiter == null && this.active) {
			this.waiter = this.template.openWaiter(this.queue);
		}
		return this.waiter;
	}

	private synchronized void closeWaiter() {
		QueueWaiter current = this.waiter;
		this.waiter = null;
		if (current != null) {
			try {
				current.close();
			}
			catch (RuntimeException ex) {
				logger.debug("Closing the wait connection of queue '{}'", this.queue, ex);
			}
		}
	}

	/**
	 * Whether the engine refused the call itself (a count, lease or setting out of range), as
	 * opposed to Redis failing to answer. A {@link NumberFormatException} is a reply that could
	 * not be read, which may pass.
	 */
	private static boolean isRefusedAsInvalid(RuntimeException ex) {
		return ex instanceof IllegalArgumentException && !(ex instanceof NumberFormatException);
	}

	private void fetchOnce() {
		if (!this.ownLeasesTakenBack) {
			takeBackOwnLeases();
		}
		int free = this.slots.availablePermits();
		if (free == 0) {
			awaitFreeSlot();
			this.reserveNext = true;
			return;
		}
		if (this.reserveNext) {
			List<JobRef> completions = this.acks.drain();
			Reservation reservation;
			try {
				// jobs beyond the idle threads wait in the executor: reserved ahead
				int startNow = Math.max(0, this.options.concurrency() - this.running.size());
				reservation = this.template.reserveBatch(this.queue, free, this.options.lease(), this.workerId,
						completions, this.maxAttempts, startNow);
			}
			catch (RuntimeException ex) {
				if (!completions.isEmpty()) {
					// not known to be recorded: kept and sent again with the next call, until Redis
					// answers (one it did record comes back as gone, a stale one is refused by its token)
					this.acks.putBack(completions);
					logger.debug("Kept {} completions of queue '{}' of a failed call, to send them again",
							completions.size(), this.queue);
				}
				throw ex;
			}
			if (reservation.refusedCompletions() > 0) {
				logger.warn("{} completions of queue '{}' refused: their leases ran out and someone else reserved "
						+ "those jobs since (they run again there)", reservation.refusedCompletions(), this.queue);
			}
			if (reservation.missingCompletions() > 0) {
				logger.info("{} completions of queue '{}' found no job: already completed or gone",
						reservation.missingCompletions(), this.queue);
			}
			this.lastReserve = System.nanoTime();
			this.serverClock.update(reservation.serverTime());
			this.nextDue = reservation.nextDue();
			List<ReservedJob> jobs = reservation.jobs();
			for (int i = 0; i < jobs.size(); i++) {
				try {
					dispatch(jobs.get(i));
				}
				catch (RuntimeException | Error ex) {
					giveBack(jobs.subList(i + 1, jobs.size()));
					throw ex;
				}
			}
			if (!jobs.isEmpty() || !this.active) {
				return;
			}
		}
		QueueWaiter current = waiter();
		if (current == null) {
			return; // stopped
		}
		this.acks.setCarried(false);
		boolean woken;
		try {
			woken = current.await(this.serverClock.waitTime(this.options.pollInterval(), this.nextDue));
		}
		catch (RuntimeException ex) {
			// open a fresh connection for the next wait
			closeWaiter();
			throw ex;
		}
		finally {
			this.acks.setCarried(this.active);
		}
		// after a quiet wait, reserve only when something may have changed without a wake-up: a
		// delayed job fell due, or a lease somewhere may have run out (checked every half lease)
		this.reserveNext = woken || this.serverClock.isDue(this.nextDue)
				|| System.nanoTime() - this.lastReserve >= this.reclaimEvery.toNanos();
	}

	private void giveBack(List<ReservedJob> jobs) {
		if (jobs.isEmpty()) {
			return;
		}
		try {
			this.template.releaseAll(this.queue, jobs.stream().map(ReservedJob::ref).toList());
		}
		catch (RuntimeException ex) {
			logger.warn("Could not give back {} undispatched jobs of queue '{}'; they return when their leases run out",
					jobs.size(), this.queue, ex);
		}
	}

	private void dispatch(ReservedJob job) {
		this.slots.acquireUninterruptibly();
		RunningJob runningJob = new RunningJob(job);
		this.running.add(runningJob);
		try {
			this.executor.execute(() -> this.handler.accept(runningJob));
		}
		catch (RuntimeException | Error ex) {
			// rejected, or the executor is broken: the job never started
			finished(runningJob);
			giveBack(List.of(job));
			throw ex;
		}
	}

	private void awaitFreeSlot() {
		try {
			if (this.slots.tryAcquire(this.options.pollInterval().toMillis(), TimeUnit.MILLISECONDS)) {
				this.slots.release();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.active = false;
		}
	}

	private void pause(Duration time) {
		try {
			this.stopped.await(time.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.active = false;
		}
	}

	/**
	 * Free a job's slot once its handler is done.
	 * @param job the job
	 */
	public void finished(RunningJob job) {
		job.finished();
		if (this.running.remove(job)) {
			this.slots.release();
		}
	}

	/** The jobs running now. */
	public Collection<RunningJob> running() {
		return this.running;
	}

	/** Stop fetching: ends a blocking wait at once by closing its connection. */
	public void stopFetching() {
		synchronized (this) {
			this.active = false;
		}
		this.stopped.countDown();
		closeWaiter();
	}

	/**
	 * Wait until every running job finished.
	 * @param timeout the longest wait
	 * @return whether all finished in time
	 */
	public boolean awaitIdle(Duration timeout) {
		try {
			if (this.slots.tryAcquire(this.permits, timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				this.slots.release(this.permits);
				return true;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return this.running.isEmpty();
	}

}
