package io.github.redisqueue.listener.fetch;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.redisqueue.core.JobEvents;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.QueueWaiter;
import io.github.redisqueue.core.Reservation;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.core.WaitResult;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.ack.AckBatcher;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single fetch loop of a container: it reserves as many jobs as there are free slots (concurrency plus
 * prefetch) in one call, hands them to the executor (while its handlers have work in line it waits until half the
 * prefetch is free, so that a drain reserves a handful of jobs per call rather than one per finished job), and when
 * the queue is empty blocks on Redis until a wake-up, the next delayed job's due time, or the poll interval,
 * whichever comes first. For a queue of one partition, the first waits after a wake-up of a loop holding no job
 * have a reserve sent right behind them on the waiter's connection, which Redis runs as soon as the wait ends (see
 * {@link #RESERVING_WAITS}): a job enqueued to a waiting loop is taken in one round trip (and, with an executor
 * of the container's own, handed to it where the reply arrives, before this loop's thread wakes), and once the jobs of a
 * reserve that emptied the queue are done, their completions go out on their own and the loop waits again, with
 * no reserve in between. An idle loop sends one blocking command per poll interval, plus one reserve per half
 * lease so that leases other workers left to expire are reclaimed even when no reaper runs. The loop of a
 * partitioned queue waits for its partitions' announcements instead, which a broken subscription may miss, so it
 * reserves (one call per partition, sent together) after every wait. A reserve that the queue's rate limit cut
 * short tells when the next hand-out is due: the loop then waits until that time by the Redis clock (at most a
 * poll interval; a stop ends the wait at once), without calling Redis meanwhile except to send completions. A
 * reserve that stopped at a bound of its own (the bytes of its payloads, a run of expired jobs) while jobs are
 * still ready is followed by another at once, as long as slots are free. Its first step gives back the leases its
 * own identity still holds from a previous run. A call Redis does not answer is retried every poll interval
 * (completions it carried are kept for the next one); a call the engine refuses as invalid ends the loop.
 *
 * <p>It owns the back-pressure: a job takes a slot when it is reserved and gives it back when its
 * handler is done, and at most {@code concurrency} handlers run at once whatever the executor (a
 * job reserved ahead waits for a handler slot without having started). {@link #drain(Duration)}
 * ends it.
 */
public final class FetchLoop implements Runnable {

	private static final Logger logger = LoggerFactory.getLogger(FetchLoop.class);

	/**
	 * How long a loop whose reserve came back short waits for a job of its own to finish before it blocks on Redis:
	 * the finished job's acknowledgement goes with the next reserve (or, once the loop holds no job and its waits
	 * carry a reserve, before the next wait), which takes what that acknowledgement frees (the next sub-job of a
	 * batch at its cap, the next job of a group).
	 */
	static final Duration LINGER = Duration.ofMillis(2);

	/**
	 * Once one of its jobs finished, how long such a loop waits for the others that are about to (started together,
	 * they often end together), so that one reserve carries their acknowledgements and takes what they free.
	 */
	static final Duration GATHER = Duration.ofNanos(300_000);

	/**
	 * While a loop that holds no job has been woken within its last this many waits, each wait has a reserve sent
	 * right behind it on the waiter's connection, which Redis runs as soon as the wait ends (only when it took a
	 * wake-up, unless a reserve is due anyway): a wake-up and the jobs it announces take one round trip. A loop left
	 * quiet longer waits alone, one command per wait.
	 */
	static final int RESERVING_WAITS = 3;

	private final QueueTemplate template;

	private final String queue;

	private final String workerId;

	private final ContainerOptions options;

	private final AckBatcher acks;

	private final JobSlots slots;

	private final JobDispatcher dispatcher;

	private final CountDownLatch stopped = new CountDownLatch(1);

	private final CountDownLatch ended = new CountDownLatch(1);

	private volatile @Nullable Throwable failure;

	// opened by the loop (not at start: a container starts while Redis is down); guarded by this, for a stop
	private @Nullable QueueWaiter waiter;

	// whether the leases this identity left in a previous run were given back (before the first reserve)
	private boolean ownLeasesTakenBack;

	private final FetchFailureLog outageLog;

	private final Duration reclaimEvery;

	// the listener's max attempts, written on the jobs it reserves; 0 keeps each job's own
	private final int maxAttempts;

	private volatile boolean active = true;

	private boolean reserveNext = true;

	// its waiter takes a reserve behind a wait (a queue of one partition, a connection of its own)
	private boolean waitsReserve;

	// waits in a row that timed out: the first few have a reserve sent behind them (see RESERVING_WAITS)
	private int quietWaits;

	// a waiter that may miss wake-ups was just opened: what was announced before it listened is
	// taken by one more reserve before the first wait
	private boolean waiterFresh;

	private long lastReserve;

	private @Nullable Instant nextDue;

	// when the queue's rate limit cut the last reserve short: its next hand-out time (Redis clock)
	private @Nullable Instant rateLimitedUntil;

	// the Redis clock: nextDue is a server time
	private final ServerClock serverClock = new ServerClock();

	/**
	 * A loop whose executor may run a task on the thread that gives it, or block it: jobs are handed to it from the
	 * loop's own thread only (see the next constructor).
	 */
	public FetchLoop(QueueTemplate template, String queue, String workerId, ContainerOptions options, Executor executor,
			Consumer<RunningJob> handler, AckBatcher acks) {
		this(template, queue, workerId, options, executor, handler, acks, false);
	}

	/**
	 * @param template the engine
	 * @param queue the queue name
	 * @param workerId the identity recorded on leases
	 * @param options the container options
	 * @param executor runs the jobs
	 * @param handler runs a job on its handler thread once it holds a handler slot; the loop frees its slots after
	 * @param acks pending acknowledgements, sent along with each reserve
	 * @param executorHandsOver whether {@code executor} never runs a task on the thread that gives it and never
	 * blocks that thread (a pool of the container's own with an unbounded queue): then the jobs of a reserve sent
	 * behind a wait are given to it on the Redis client's I/O thread, as soon as the reply arrives
	 */
	public FetchLoop(QueueTemplate template, String queue, String workerId, ContainerOptions options, Executor executor,
			Consumer<RunningJob> handler, AckBatcher acks, boolean executorHandsOver) {
		this.template = template;
		this.queue = queue;
		this.workerId = workerId;
		this.options = options;
		this.acks = acks;
		this.slots = new JobSlots(options.concurrency(), options.prefetch(), acks::recordStart);
		this.dispatcher = new JobDispatcher(this.slots, executor, handler, executorHandsOver);
		this.maxAttempts = (options.maxAttempts() != null) ? options.maxAttempts() : 0;
		this.outageLog = new FetchFailureLog(queue, options.pollInterval());
		Duration halfLease = options.lease().dividedBy(2);
		this.reclaimEvery = (halfLease.compareTo(options.pollInterval()) > 0) ? halfLease : options.pollInterval();
	}

	/**
	 * Fetch until {@link #drain(Duration)} stops it. A failure it cannot retry (a call the engine
	 * refused as invalid, an {@link Error}, a broken executor) ends it early: the failure is kept
	 * for {@link #failure()}, and the jobs reserved ahead that never started are given back.
	 */
	@Override
	public void run() {
		report((events) -> events.fetchStarted(this.queue));
		try {
			fetchUntilStopped();
		}
		catch (Throwable ex) {
			this.failure = ex;
			report((events) -> events.fetchFailed(this.queue, true));
			String why = (ex instanceof IllegalArgumentException) ? ": the engine refused its call as invalid (a "
					+ "configuration or programming error, not an outage)" : " unexpectedly";
			logger.error("Container '{}' of queue '{}' stopped fetching{}; it takes no new jobs until it is restarted",
					this.workerId, this.queue, why, ex);
			giveBackWaiting();
		}
		finally {
			this.ended.countDown();
		}
	}

	/** Tells the template's job events; a failing one is logged and changes nothing here. */
	private void report(Consumer<JobEvents> event) {
		try {
			event.accept(this.template.getJobEvents());
		}
		catch (RuntimeException ex) {
			logger.warn("Job events listener failed for queue '{}'", this.queue, ex);
		}
	}

	private void fetchUntilStopped() {
		this.acks.setSentWithReserve(true);
		try {
			while (this.active) {
				try {
					fetchOnce();
					this.outageLog.succeeded();
				}
				catch (RuntimeException ex) {
					if (FetchFailureLog.isRefusedAsInvalid(ex)) {
						// a configuration or programming error that no retry cures: end the loop,
						// so that the container reports it
						throw ex;
					}
					if (!this.active) {
						break;
					}
					this.outageLog.failed(ex);
					report((events) -> events.fetchFailed(this.queue, false));
					pause(this.options.pollInterval());
				}
			}
		}
		finally {
			this.acks.setSentWithReserve(false);
			closeWaiter();
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
			this.waiterFresh = this.waiter.mayMissWakeups();
		}
		return this.waiter;
	}

	private synchronized void closeWaiter() {
		QueueWaiter current = this.waiter;
		this.waiter = null;
		this.waitsReserve = false;
		if (current != null) {
			try {
				current.close();
			}
			catch (RuntimeException ex) {
				logger.debug("Closing the wait connection of queue '{}'", this.queue, ex);
			}
		}
	}

	private void fetchOnce() {
		if (!this.ownLeasesTakenBack) {
			takeBackOwnLeases();
		}
		if (this.rateLimitedUntil != null) {
			awaitRateLimit(this.rateLimitedUntil);
			this.rateLimitedUntil = null;
			this.reserveNext = true;
			return;
		}
		if (!this.slots.refillNow()) {
			// no slot free, or the handlers have work in line and few slots are free: wait for more
			awaitRefill();
			this.reserveNext = true;
			return;
		}
		int free = this.slots.free();
		if (this.reserveNext) {
			this.slots.resetReleases();
			List<JobRef> completions = this.acks.drain();
			Reservation reservation;
			long sent = System.nanoTime();
			try {
				// jobs beyond the idle threads wait in the executor: reserved ahead
				reservation = this.template.reserveInTurn(this.queue, free, this.options.lease(), this.workerId,
						completions, this.maxAttempts, this.slots.startNow());
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
			// those of partitions that did not answer are kept: sent with a later call, or by the
			// acknowledgements' own flush
			this.acks.sent(completions, reservation.unsentCompletions());
			if (reservation.refusedCompletions() > 0) {
				logger.warn("{} completions of queue '{}' refused: their leases ran out and someone else reserved "
						+ "those jobs since (they run again there)", reservation.refusedCompletions(), this.queue);
			}
			if (reservation.missingCompletions() > 0) {
				logger.info("{} completions of queue '{}' found no job: already completed or gone",
						reservation.missingCompletions(), this.queue);
			}
			this.slots.reserved(System.nanoTime() - sent);
			if (took(reservation, free, 0)) {
				return;
			}
		}
		QueueWaiter current = waiter();
		if (current == null) {
			return; // stopped
		}
		if (this.waiterFresh) {
			this.waiterFresh = false;
			this.reserveNext = true;
			return;
		}
		if (!this.active) {
			return;
		}
		// only a loop that holds no job reserves behind its wait: its free slots and idle threads cannot change
		// while it waits, so the reserve sent before the wait asks for what it would ask after it; its pending
		// completions go in front of the wait (what they free wakes it), the later ones on their own
		boolean reserving = this.quietWaits < RESERVING_WAITS && this.slots.jobs().isEmpty();
		List<JobRef> completions = this.acks.waiting(reserving);
		Duration wait = this.serverClock.waitTime(this.options.pollInterval(), this.nextDue);
		WaitResult waited = null;
		int waitFree = this.slots.free();
		boolean woken;
		try {
			if (reserving) {
				// a timed-out wait is followed by a reserve when a delayed job falls due at its end,
				// or a lease somewhere may have run out by then (checked every half lease)
				boolean always = current.mayMissWakeups() || (this.nextDue != null && wait.compareTo(this.options.pollInterval()) < 0)
						|| System.nanoTime() + wait.toNanos() - this.lastReserve >= this.reclaimEvery.toNanos();
				this.slots.resetReleases();
				waited = this.template.reserveAfterWait(this.queue, current, wait, !always, waitFree, this.options.lease(),
						this.workerId, this.maxAttempts, this.slots.startNow(), completions,
						(results) -> this.acks.answered(completions, results), this.dispatcher.early() ? this::handOff : null);
			}
			woken = (waited != null) ? waited.woken() : current.await(wait);
		}
		catch (RuntimeException ex) {
			// open a fresh connection for the next wait
			closeWaiter();
			throw ex;
		}
		finally {
			this.acks.setSentWithReserve(this.active);
		}
		this.quietWaits = woken ? 0 : this.quietWaits + 1;
		this.waitsReserve |= waited != null;
		Reservation behind = (waited != null) ? waited.reservation() : null;
		if (behind != null) {
			// the reserve sent behind the wait ran: what it took is handled as any reserve's (its first jobs may
			// have been dispatched already, as its reply arrived)
			this.reserveNext = true;
			if (!took(behind, waitFree, waited.handedOff())) {
				this.reserveNext = false;
			}
			return;
		}
		// after a quiet wait, reserve only when something may have changed without a wake-up: a
		// delayed job fell due, or a lease somewhere may have run out (checked every half lease)
		this.reserveNext = woken || current.mayMissWakeups() || this.serverClock.isDue(this.nextDue)
				|| System.nanoTime() - this.lastReserve >= this.reclaimEvery.toNanos();
	}

	/**
	 * Handle what a reserve took: dispatch its jobs (but the first {@code handedOff}, dispatched as its reply
	 * arrived), and tell whether the loop goes on at once (all slots filled, a limit or bound cut the call short, or
	 * jobs of its own finished within the linger) rather than waiting next.
	 */
	private boolean took(Reservation reservation, int free, int handedOff) {
		List<ReservedJob> jobs = reservation.jobs();
		if (!this.active) {
			// a call that returned after a stop (one sent behind a wait that the stop ended): none of its jobs runs
			// here but those dispatched already, which the stop gives back unless they started
			giveBack(jobs.subList(handedOff, jobs.size()).stream().map(ReservedJob::ref).toList(), false, "prefetched");
			return true;
		}
		this.lastReserve = System.nanoTime();
		this.serverClock.update(reservation.serverTime());
		this.nextDue = reservation.nextDue();
		this.rateLimitedUntil = reservation.rateLimitedUntil();
		Set<String> ahead = JobDispatcher.ahead(reservation);
		for (int i = handedOff; i < jobs.size(); i++) {
			try {
				this.dispatcher.dispatch(jobs.get(i), ahead.contains(jobs.get(i).id()));
			}
			catch (RuntimeException | Error ex) {
				giveBack(jobs.subList(i, jobs.size()).stream().map(ReservedJob::ref).toList(), false, "undispatched");
				throw ex;
			}
		}
		if (!this.active || jobs.size() == free || this.rateLimitedUntil != null || reservation.cutShort()) {
			// a loop the rate limit cut short waits for its next hand-out in the next step; one
			// that a bound of the call's own cut short (payload bytes, a run of expired jobs)
			// reserves again at once
			return true;
		}
		if (!this.slots.jobs().isEmpty() && awaitOwnRelease()) {
			// short, one of its own running jobs finished meanwhile; once none is left, a loop whose waits carry a
			// reserve waits at once (nothing was ready, jobs enqueued since left wake-ups, its completions go first)
			return !(this.slots.jobs().isEmpty() && this.waitsReserve);
		}
		// short: such a loop waits too (what its running jobs free when they finish wakes it)
		return !jobs.isEmpty() && !this.waitsReserve;
	}

	/** Where the reply of a reserve behind a wait arrives: its jobs go to the executor at once (see took). */
	private int handOff(Reservation reservation) {
		if (!this.active || reservation.jobs().isEmpty()) {
			return 0;
		}
		this.acks.waitOver();
		return this.dispatcher.handOff(reservation, () -> this.active);
	}

	private boolean awaitOwnRelease() {
		try {
			if (!this.slots.awaitRelease(LINGER)) {
				return false;
			}
			long until = System.nanoTime() + GATHER.toNanos();
			long left;
			while (!this.slots.jobs().isEmpty() && (left = until - System.nanoTime()) > 0) {
				if (!this.slots.awaitRelease(Duration.ofNanos(left))) {
					break;
				}
			}
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.active = false;
			return false;
		}
	}

	private void awaitRefill() {
		try {
			this.slots.awaitRefill(this.options.pollInterval(), () -> this.active);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.active = false;
		}
	}

	/**
	 * Wait until the rate limit's next hand-out is due, by the Redis clock: completions go out on
	 * their own meanwhile, and a stop ends the wait at once.
	 */
	private void awaitRateLimit(Instant until) {
		Duration wait = this.serverClock.waitTime(this.options.pollInterval(), until);
		this.acks.setSentWithReserve(false);
		try {
			pause(wait);
		}
		finally {
			this.acks.setSentWithReserve(this.active);
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
	 * The jobs held now: running, or reserved ahead and waiting for a handler slot.
	 * @return a live view of them
	 */
	public Collection<RunningJob> runningJobs() {
		return this.slots.jobs();
	}

	/**
	 * How many jobs it may hold now beyond its concurrency: the fixed prefetch, or where the adaptive one stands.
	 * @return the prefetch now
	 */
	public int prefetch() {
		return this.slots.prefetch();
	}

	/**
	 * Why the loop ended on its own, if it did: a failure it cannot retry.
	 * @return the failure, or {@code null}
	 */
	public @Nullable Throwable failure() {
		return this.failure;
	}

	/**
	 * Stop for good: stop fetching (a blocking wait ends at once), give back the jobs reserved
	 * ahead that never started (counting nothing), wait up to {@code timeout} for the running
	 * jobs, send the completions still pending, and give the jobs still running back to the queue
	 * at once, each counted as lost (as a lease that ran out would be), interrupting their
	 * handlers.
	 * @param timeout the longest wait for running jobs
	 */
	public void drain(Duration timeout) {
		stopFetching();
		awaitEnd();
		giveBackWaiting();
		boolean idle = this.slots.awaitIdle(timeout);
		if (!this.acks.flush()) {
			logger.warn("Container '{}' could not send {} completions of queue '{}' before stopping; those jobs run "
					+ "again when their leases run out", this.workerId, this.acks.pendingCount(), this.queue);
		}
		// each counted as lost (it ran without an outcome), so a job that hangs at every shutdown
		// ends dead after its max attempts, and a started job no longer expires
		List<JobRef> unfinished = idle ? List.of() : this.slots.loseRunning();
		if (!unfinished.isEmpty() && giveBack(unfinished, true, "unfinished")) {
			logger.info("Container '{}' gave {} unfinished jobs back to queue '{}'", this.workerId, unfinished.size(),
					this.queue);
		}
	}

	/**
	 * Stop fetching: ends a blocking wait at once, with the waiter's own means where it has one
	 * (a reserve sent behind the wait then still runs, and what it took reaches the loop, which
	 * dispatches it or gives it back as it gives back any job reserved ahead), else by closing
	 * its connection; the loop closes the waiter as it ends.
	 */
	private void stopFetching() {
		QueueWaiter current;
		synchronized (this) {
			this.active = false;
			current = this.waiter;
		}
		this.stopped.countDown();
		this.slots.wakeRefill();
		if (current == null || !current.endWait()) {
			closeWaiter();
		}
	}

	/** Wait up to 10 s for the loop's thread to leave {@link #run()}; a stop ends a blocking wait at once. */
	private void awaitEnd() {
		try {
			this.ended.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Give back the jobs reserved ahead that never started; they count nothing. */
	private void giveBackWaiting() {
		giveBack(this.slots.abandonWaiting(), false, "prefetched");
	}

	/**
	 * Give jobs back to the queue at once.
	 * @param started whether they ran (then each counts as lost) or never started
	 * @param which what they are, for the log
	 * @return whether they are back
	 */
	private boolean giveBack(List<JobRef> jobs, boolean started, String which) {
		if (jobs.isEmpty()) {
			return true;
		}
		try {
			this.template.releaseAll(this.queue, jobs, started);
			return true;
		}
		catch (RuntimeException ex) {
			logger.warn("Could not give back {} {} jobs of queue '{}'; they return when their leases run out",
					jobs.size(), which, this.queue, ex);
			return false;
		}
	}

}
