package io.github.redisqueue.listener.fetch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

/**
 * The back-pressure of a fetch loop: the jobs it holds, one slot each from reserve until its
 * handler is done (concurrency plus prefetch in all), and the handler slots (concurrency), so
 * that no executor, however many threads it has, runs more jobs at once. A job reserved ahead
 * waits for a handler slot without having started, and can still be given back unstarted. An
 * unset prefetch adapts to the handlers' speed (see {@link AdaptivePrefetch}).
 *
 * <p>Held jobs start in the order they were held, whichever executor thread takes them. The start
 * of a job reserved ahead is recorded in Redis before its handler runs, together with the starts
 * of the next jobs in line (up to {@link #STARTS_PER_THREAD} per handler slot in one call): those
 * then start without a call of their own. A worker that dies thus has fewer than
 * {@code STARTS_PER_THREAD x concurrency} jobs recorded as started beyond those it was running.
 */
final class JobSlots {

	/**
	 * How many starts of jobs reserved ahead one call records, per handler slot: the starting
	 * job's and those of the jobs next in line. A call per handler slot's worth of jobs made the
	 * handlers of a fast drain wait for those calls most of the time (each thread's next job was
	 * the next call's); four per slot let them run on while the next call is rare, and keep the
	 * jobs that a dying worker has recorded as started without having run them to a few per thread.
	 */
	static final int STARTS_PER_THREAD = 4;

	private final int concurrency;

	// concurrency plus the prefetch now; changed by the fetch loop only
	private volatile int held;

	private final AdjustableSemaphore slots;

	// null for a fixed prefetch
	private final @Nullable AdaptivePrefetch adaptive;

	private final Semaphore handlerSlots;

	// by identity, not job id: a job given back and reserved again may run here twice for a moment
	private final Set<RunningJob> jobs = ConcurrentHashMap.newKeySet();

	// the held jobs not taken by a handler thread yet, in the order they were held
	private final ConcurrentLinkedQueue<RunningJob> inLine = new ConcurrentLinkedQueue<>();

	// how many are in line (the queue's size() walks it)
	private final AtomicInteger inLineCount = new AtomicInteger();

	// one permit per slot freed since the fetch loop last reset it: lets the loop wait for a job of
	// its own to finish
	private final Semaphore releases = new Semaphore(0);

	// one permit per change that may let the fetch loop reserve again (a slot freed, a job taken
	// from the line, a stop): what awaitRefill waits on
	private final Semaphore refillSignals = new Semaphore(0);

	private final StartRecorder recordStart;

	/** Records in Redis that jobs reserved ahead start. */
	@FunctionalInterface
	interface StartRecorder {

		/**
		 * Record that a job reserved ahead starts now, with the starts of the next jobs in line.
		 * @param job the job about to start
		 * @param next the jobs reserved ahead next in line, whose starts go with it
		 * @return whether the job may run: {@code false} when its lease was lost
		 */
		boolean recordStart(RunningJob job, List<RunningJob> next);

	}

	/**
	 * @param concurrency the handler slots
	 * @param prefetch the jobs held beyond them, or {@code null} to adapt
	 */
	JobSlots(int concurrency, @Nullable Integer prefetch) {
		this(concurrency, prefetch, (job, next) -> true);
	}

	/**
	 * @param concurrency the handler slots
	 * @param prefetch the jobs held beyond them, or {@code null} to adapt
	 * @param recordStart records in Redis that a job reserved ahead starts, before its handler
	 * runs; {@code false} when it must not run (its lease was lost)
	 */
	JobSlots(int concurrency, @Nullable Integer prefetch, StartRecorder recordStart) {
		this.recordStart = recordStart;
		this.concurrency = concurrency;
		this.adaptive = (prefetch != null) ? null : new AdaptivePrefetch(concurrency);
		this.held = concurrency + ((this.adaptive != null) ? this.adaptive.current() : prefetch);
		this.slots = new AdjustableSemaphore(this.held);
		this.handlerSlots = new Semaphore(concurrency);
	}

	/** How many jobs may be reserved beyond the handler slots now. */
	int prefetch() {
		return this.held - this.concurrency;
	}

	/**
	 * A reserve call came back (fetch loop only): an adaptive prefetch follows the handlers' speed.
	 * @param roundTripNanos how long the call took
	 */
	void reserved(long roundTripNanos) {
		if (this.adaptive == null) {
			return;
		}
		int next = this.concurrency + this.adaptive.reserved(roundTripNanos);
		int change = next - this.held;
		if (change > 0) {
			this.slots.release(change);
		}
		else if (change < 0) {
			// may go below zero while more are held than the new limit: none is taken until enough end
			this.slots.reduce(-change);
		}
		this.held = next;
	}

	/** How many more jobs may be reserved now. */
	int free() {
		return Math.max(0, this.slots.availablePermits());
	}

	/** How many of the jobs to reserve now would find a handler slot at once. */
	int startNow() {
		return Math.max(0, this.concurrency - this.jobs.size());
	}

	/** Forget the slots freed so far: {@link #awaitRelease} waits for the next one. */
	void resetReleases() {
		this.releases.drainPermits();
	}

	/**
	 * Wait until a slot was freed since the last {@link #resetReleases()}.
	 * @param timeout the longest wait
	 * @return whether one was
	 */
	boolean awaitRelease(Duration timeout) throws InterruptedException {
		return this.releases.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
	}

	/**
	 * Hold a reserved job: it takes a slot at once, without waiting. No more were reserved than
	 * were free, but an adaptive prefetch may have shrunk since: the slots then run below zero,
	 * and no further job is reserved until enough ended.
	 */
	RunningJob hold(ReservedJob job) {
		return hold(job, false);
	}

	/**
	 * Hold a reserved job, marked in Redis as reserved ahead or not.
	 * @param job the job
	 * @param ahead whether Redis marked it as reserved ahead
	 * @return the held job
	 */
	RunningJob hold(ReservedJob job, boolean ahead) {
		this.slots.reduce(1);
		RunningJob running = new RunningJob(job, ahead);
		this.jobs.add(running);
		this.inLine.add(running);
		this.inLineCount.incrementAndGet();
		return running;
	}

	/**
	 * Run the next held job in line on the calling thread once a handler slot is free (one call
	 * per held job), unless it was given back meanwhile, then free its slots.
	 * @param handler what runs it
	 */
	void runNext(Consumer<RunningJob> handler) {
		try {
			this.handlerSlots.acquire();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			RunningJob job = takeInLine();
			if (job != null) {
				release(job);
			}
			return;
		}
		RunningJob job = takeInLine();
		if (job == null) {
			this.handlerSlots.release();
			return;
		}
		runHolding(job, handler);
	}

	/**
	 * Run a given held job on the calling thread once a handler slot is free, out of turn,
	 * unless it was given back meanwhile, then free its slots.
	 * @param job the job
	 * @param handler what runs it
	 */
	void run(RunningJob job, Consumer<RunningJob> handler) {
		if (this.inLine.remove(job)) {
			this.inLineCount.decrementAndGet();
		}
		try {
			this.handlerSlots.acquire();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			release(job);
			return;
		}
		runHolding(job, handler);
	}

	// with a handler slot held: record the start of a job reserved ahead, run it, free both slots
	private void runHolding(RunningJob job, Consumer<RunningJob> handler) {
		try {
			if (job.isAhead() && job.startResult() == null && !this.recordStart.recordStart(job, nextInLine())) {
				return;
			}
			if (job.isAhead() && job.startResult() != null && job.startResult() != AckResult.OK) {
				// recorded in advance with an earlier job's call, which found its lease lost
				job.loseLease();
				return;
			}
			if (job.started(Thread.currentThread())) {
				if (this.adaptive != null) {
					long start = System.nanoTime();
					handler.accept(job);
					this.adaptive.handled(System.nanoTime() - start);
				}
				else {
					handler.accept(job);
				}
			}
		}
		finally {
			// no interrupt can reach this thread once the job is marked finished; then clear any
			// that arrived before, so the pooled thread starts its next job clean
			job.finished();
			Thread.interrupted();
			this.handlerSlots.release();
			release(job);
		}
	}

	private @Nullable RunningJob takeInLine() {
		RunningJob job = this.inLine.poll();
		if (job != null && this.inLineCount.decrementAndGet() < this.concurrency) {
			// the fetch loop may wait for this (see awaitRefill)
			this.refillSignals.release();
		}
		return job;
	}

	/**
	 * Wait while the handlers have work in line (at least one job per handler thread waits) and
	 * fewer slots than half the prefetch are free: reserving then takes a handful of jobs per call
	 * instead of one per finished job. Ends at once when {@code active} turns false (see
	 * {@link #wakeRefill()}).
	 * @param timeout the longest wait
	 * @param active whether the fetch loop still runs
	 */
	void awaitRefill(Duration timeout, BooleanSupplier active) throws InterruptedException {
		long until = System.nanoTime() + timeout.toNanos();
		long left;
		while (active.getAsBoolean() && !refillNow() && (left = until - System.nanoTime()) > 0) {
			this.refillSignals.tryAcquire(left, TimeUnit.NANOSECONDS);
		}
	}

	/** End a wait of {@link #awaitRefill} to check again (the fetch loop is stopping). */
	void wakeRefill() {
		this.refillSignals.release();
	}

	/** Whether the fetch loop should reserve now rather than wait for more free slots. */
	boolean refillNow() {
		int free = free();
		return free > 0 && (free >= Math.max(1, prefetch() / 2) || this.inLineCount.get() < this.concurrency);
	}

	/**
	 * The jobs reserved ahead next in line whose starts are not recorded yet, among the first
	 * {@code STARTS_PER_THREAD x concurrency - 1} jobs in line. Those recorded already count, and
	 * so do jobs that started at once (their reserve recorded their starts) still waiting for a
	 * thread to take them: a reserve starts jobs at once only while fewer than {@code concurrency}
	 * are held, so they join the line within that window. The line only shrinks from its head, so
	 * no more are ever recorded as started before a thread took them.
	 */
	private List<RunningJob> nextInLine() {
		List<RunningJob> next = new ArrayList<>();
		int window = STARTS_PER_THREAD * this.concurrency - 1;
		int looked = 0;
		for (RunningJob job : this.inLine) {
			if (looked >= window) {
				break;
			}
			if (job.isLost()) {
				continue;
			}
			looked++;
			if (job.isAhead() && job.startResult() == null) {
				next.add(job);
			}
		}
		return next;
	}

	/** Free a job's slot once its handler is done, or once it will never run. */
	void release(RunningJob job) {
		if (!job.hasStarted()) {
			// never taken by a handler thread (the executor refused it): it must not run
			if (this.inLine.remove(job)) {
				this.inLineCount.decrementAndGet();
			}
		}
		job.finished();
		if (this.jobs.remove(job)) {
			this.slots.release();
			this.releases.release();
			this.refillSignals.release();
		}
	}

	/** The jobs held now: running, or reserved ahead and waiting for a handler slot. */
	Collection<RunningJob> jobs() {
		return this.jobs;
	}

	/**
	 * Wait until no job is held.
	 * @param timeout the longest wait
	 * @return whether none is held
	 */
	boolean awaitIdle(Duration timeout) {
		int all = this.held;
		try {
			if (this.slots.tryAcquire(all, timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				this.slots.release(all);
				return true;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return this.jobs.isEmpty();
	}

	/**
	 * Give up the jobs reserved ahead that have not started: they never run here.
	 * @return those jobs
	 */
	List<JobRef> abandonWaiting() {
		List<JobRef> waiting = new ArrayList<>();
		for (RunningJob job : this.jobs) {
			if (job.abandonIfNotStarted()) {
				waiting.add(job.job().ref());
			}
		}
		return waiting;
	}

	/**
	 * Mark the leases of the jobs still running as lost, interrupting their handlers; a job
	 * settled meanwhile is left alone (its thread may be sending acknowledgements).
	 * @return the jobs whose leases were marked lost
	 */
	List<JobRef> loseRunning() {
		List<JobRef> unfinished = new ArrayList<>();
		for (RunningJob job : this.jobs) {
			if (job.hasStarted() && job.loseLease()) {
				unfinished.add(job.job().ref());
			}
		}
		return unfinished;
	}

	/** A semaphore whose permits can be taken away while they are held. */
	@SuppressWarnings("serial")
	private static final class AdjustableSemaphore extends Semaphore {

		AdjustableSemaphore(int permits) {
			super(permits);
		}

		void reduce(int permits) {
			reducePermits(permits);
		}

	}

}
