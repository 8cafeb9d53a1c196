package io.github.redisqueue.listener.ack;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.JobStarts;
import io.github.redisqueue.core.QueueOperations;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.fetch.RunningJob;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit of completions. A finished job's acknowledgement joins a queue. While the fetch
 * loop is running it takes the pending acknowledgements along with its next reserve (one script
 * call finishes and fetches), but an acknowledgement never waits for a reserve longer than
 * {@link #MAX_DELAY}: by then a timer thread sends everything pending in one call (per
 * partition). While the loop is blocked on an empty queue, whichever handler thread finds no
 * flush under way sends everything pending at once. Under load many jobs share a call; when idle
 * each acknowledgement goes out at once. Acknowledgements of a call that failed are kept and sent
 * again with the next call until Redis answers (a resent one that Redis did record is answered as
 * gone, one whose job was reserved again since is refused by its token); meanwhile the lease
 * keeper extends their jobs' leases ({@link #unconfirmed()}). They stay bounded: while Redis does
 * not answer no new jobs are reserved, so at most {@code concurrency + prefetch} jobs, plus what
 * finishes meanwhile, wait here.
 */
public final class AckBatcher {

	private static final Logger logger = LoggerFactory.getLogger(AckBatcher.class);

	private static final int MAX_BATCH = 1000;

	/**
	 * The longest a finished job's acknowledgement waits for a reserve of the fetch loop to carry
	 * it before it is sent on its own. Longer would let more acknowledgements share a call when
	 * the loop is slow, but a worker that dies meanwhile has finished jobs that run again (their
	 * acknowledgements were not sent): this bounds that window.
	 */
	public static final Duration MAX_DELAY = Duration.ofMillis(5);

	private static final long NOT_ARMED = Long.MIN_VALUE;

	private final QueueOperations operations;

	private final String queue;

	private final ConcurrentLinkedQueue<JobRef> pending = new ConcurrentLinkedQueue<>();

	// every completion not answered by Redis yet (pending, or in a call under way): the lease
	// keeper extends their leases until their completions land
	private final Set<JobRef> unconfirmed = ConcurrentHashMap.newKeySet();

	// taken by the fetch loop to go in front of its wait, until answered (see waiting)
	private volatile @Nullable List<JobRef> aheadOfWait;

	private final ReentrantLock flushLock = new ReentrantLock();

	private volatile boolean sentWithReserve;

	private final AtomicInteger failedSends = new AtomicInteger();

	// null when the engine cannot record starts (not a QueueTemplate): starts are not recorded
	private final @Nullable JobStarts starts;

	// starts of jobs reserved ahead to record with the next call
	private final ConcurrentLinkedQueue<StartMark> marks = new ConcurrentLinkedQueue<>();

	// when (System.nanoTime) the timer sends what is pending, or NOT_ARMED
	private final AtomicLong sendAt = new AtomicLong(NOT_ARMED);

	private final String timerName;

	// started with the first acknowledgement that has to wait for a reserve; guarded by this
	private @Nullable Thread timer;

	// the timer sleeps until an acknowledgement wakes it (set before its last look at sendAt)
	private final AtomicBoolean timerAsleep = new AtomicBoolean(true);

	// deadlines set (see arm): the timer goes on looking while this moves
	private final AtomicLong arms = new AtomicLong();

	private final AtomicInteger timerUnparks = new AtomicInteger();

	private volatile boolean closed;

	/**
	 * @param operations the engine
	 * @param queue the queue name
	 */
	public AckBatcher(QueueOperations operations, String queue) {
		this(operations, queue, "queue-acks-" + queue);
	}

	/**
	 * @param operations the engine
	 * @param queue the queue name
	 * @param timerName the name of the thread that sends acknowledgements no reserve took within
	 * {@link #MAX_DELAY}
	 */
	public AckBatcher(QueueOperations operations, String queue, String timerName) {
		this.operations = operations;
		this.queue = queue;
		this.timerName = timerName;
		this.starts = (operations instanceof QueueTemplate template) ? new JobStarts(template) : null;
	}

	/**
	 * Acknowledge a job: it is sent now when the fetch loop does not send it, else with the loop's
	 * next reserve or, if none took it within {@link #MAX_DELAY}, on its own then.
	 * @param job the job
	 */
	public void complete(JobRef job) {
		this.unconfirmed.add(job);
		this.pending.add(job);
		if (!this.sentWithReserve) {
			flushIfIdle();
		}
		else {
			arm();
		}
	}

	/**
	 * Make sure the timer sends what is pending within {@link #MAX_DELAY} from now. A timer that is
	 * awake (looking every {@link #MAX_DELAY} while acknowledgements keep coming, see
	 * {@link #sendWhenDue}) is left alone: it sees the deadline in time, and a busy container does
	 * not wake a thread for each acknowledgement.
	 */
	private void arm() {
		if (this.sendAt.compareAndSet(NOT_ARMED, System.nanoTime() + MAX_DELAY.toNanos())) {
			this.arms.incrementAndGet();
			Thread thread = timer();
			// only the first acknowledgement after the timer fell asleep wakes it
			if (thread != null && this.timerAsleep.compareAndSet(true, false)) {
				this.timerUnparks.incrementAndGet();
				LockSupport.unpark(thread);
			}
		}
	}

	private synchronized @Nullable Thread timer() {
		if (this.timer == null && !this.closed) {
			Thread thread = new Thread(this::sendWhenDue, this.timerName);
			thread.setDaemon(true);
			thread.start();
			this.timer = thread;
		}
		return this.timer;
	}

	/**
	 * The timer: whenever armed, wait until due, then send everything pending (waiting for a send
	 * under way, which may have taken the acknowledgements before the latest ones). Unarmed, it
	 * looks again {@link #MAX_DELAY} later as long as something armed it since it last woke (an
	 * armed deadline is never more than {@link #MAX_DELAY} away, so a look finds it in time), and
	 * sleeps until an acknowledgement wakes it once nothing did: at a steady rate it wakes about
	 * once or twice per {@link #MAX_DELAY}, at a low rate as often as before, for the deadline only.
	 */
	private void sendWhenDue() {
		this.timerAsleep.set(false);
		long armsSeen = this.arms.get();
		while (!this.closed) {
			long due = this.sendAt.get();
			long armsNow = this.arms.get();
			boolean armedSince = armsNow != armsSeen;
			armsSeen = armsNow;
			if (due == NOT_ARMED) {
				if (armedSince) {
					LockSupport.parkNanos(this, MAX_DELAY.toNanos());
					continue;
				}
				// arm() sets the deadline, then reads this: one of the two sees the other's write
				this.timerAsleep.set(true);
				if (this.sendAt.get() == NOT_ARMED && !this.closed) {
					LockSupport.park(this);
				}
				this.timerAsleep.set(false);
				continue;
			}
			long left = due - System.nanoTime();
			if (left > 0) {
				LockSupport.parkNanos(this, left);
				continue;
			}
			if (this.sendAt.compareAndSet(due, NOT_ARMED)) {
				// a failed call keeps them for the next one: the loop's next reserve, the next
				// acknowledgement's timer, or the periodic resend
				flush();
			}
		}
	}

	/** How many times an acknowledgement unparked the timer to wake it from its sleep (for tests). */
	int timerUnparks() {
		return this.timerUnparks.get();
	}

	/**
	 * Stop the timer (after the last flush): acknowledgements still pending are sent by
	 * {@link #flush()} only.
	 */
	public void close() {
		this.closed = true;
		Thread thread;
		synchronized (this) {
			thread = this.timer;
		}
		if (thread != null) {
			LockSupport.unpark(thread);
		}
	}

	/**
	 * Say whether pending acknowledgements go out with the fetch loop's next reserve. When they
	 * no longer do (the loop is about to block, or it stopped), what is pending is sent now.
	 * @param sentWithReserve whether the fetch loop sends them with its next reserve
	 */
	public void setSentWithReserve(boolean sentWithReserve) {
		List<JobRef> unanswered = this.aheadOfWait;
		if (sentWithReserve && unanswered != null) {
			// taken to go in front of a wait that ended without their answer
			this.aheadOfWait = null;
			putBack(unanswered);
		}
		this.sentWithReserve = sentWithReserve;
		if (!sentWithReserve) {
			flushIfIdle();
		}
		else if (!this.pending.isEmpty()) {
			arm();
		}
	}

	/**
	 * The fetch loop's wait is over and the jobs its reserve took are being handed out, where the reply arrived and
	 * before the loop's thread has woken: from now on an acknowledgement waits for the loop's next call (or the
	 * timer) instead of being sent on its own, as after {@link #setSentWithReserve} with {@code true}, which the
	 * loop's thread calls next. Without it, a job that ends before that thread wakes would cost a call of its own.
	 */
	public void waitOver() {
		this.sentWithReserve = true;
	}

	/**
	 * The fetch loop is about to wait: acknowledgements no longer go with its reserves (see
	 * {@link #setSentWithReserve}). With {@code ahead} what is pending is taken, up to one call's
	 * worth, to go in front of the wait; {@link #answered} tells what became of them, and those
	 * still unanswered when the loop sends with its reserves again are kept to send again.
	 * @param ahead whether the loop sends acknowledgements in front of its wait
	 * @return the acknowledgements taken (empty without {@code ahead})
	 */
	public List<JobRef> waiting(boolean ahead) {
		List<JobRef> taken = ahead ? drain() : List.of();
		this.aheadOfWait = taken.isEmpty() ? null : taken;
		setSentWithReserve(false);
		return taken;
	}

	/**
	 * Take what is pending, for the fetch loop to send with its reserve.
	 * @return the pending acknowledgements, at most 1,000
	 */
	public List<JobRef> drain() {
		// what is added from now on arms the timer again
		this.sendAt.set(NOT_ARMED);
		List<JobRef> batch = take();
		if (!this.pending.isEmpty() && this.sentWithReserve) {
			// more than one call takes: the rest must not wait longer
			arm();
		}
		return batch;
	}

	private List<JobRef> take() {
		List<JobRef> batch = new ArrayList<>();
		JobRef next;
		while (batch.size() < MAX_BATCH && (next = this.pending.poll()) != null) {
			batch.add(next);
		}
		return batch;
	}

	/**
	 * Keep acknowledgements whose call failed (connection reset, Redis restarting), to send them
	 * again with the next call. One that Redis did record meanwhile is answered as gone, one
	 * whose job was reserved again since is refused by its token: resending is harmless.
	 * @param jobs the acknowledgements
	 */
	public void putBack(Collection<JobRef> jobs) {
		this.unconfirmed.addAll(jobs);
		this.pending.addAll(jobs);
	}

	/**
	 * The fetch loop's reserve that carried acknowledgements was answered: those it recorded are
	 * confirmed, those it did not (a partition that did not answer) are kept to send again.
	 * @param sent the acknowledgements the reserve carried
	 * @param unsent those of them it did not record
	 */
	public void sent(Collection<JobRef> sent, Collection<JobRef> unsent) {
		for (JobRef job : sent) {
			this.unconfirmed.remove(job);
		}
		if (!unsent.isEmpty()) {
			putBack(unsent);
		}
	}

	/**
	 * The acknowledgements Redis has not answered yet: pending, or carried by a call under way.
	 * Their jobs are finished but still leased, and their leases are kept (extended) until the
	 * acknowledgements land, so a slow or failing call never lets such a job run again.
	 * @return a live view of them
	 */
	public Collection<JobRef> unconfirmed() {
		return this.unconfirmed;
	}

	/**
	 * Send what is pending unless another thread is sending; after a failed call what is left
	 * waits for the next call (the fetch loop's next reserve or the next flush).
	 */
	public void flushIfIdle() {
		while (!this.pending.isEmpty() && this.flushLock.tryLock()) {
			boolean sent;
			try {
				sent = send();
			}
			finally {
				this.flushLock.unlock();
			}
			if (!sent) {
				return;
			}
		}
	}

	/**
	 * Send what is pending unless another thread is sending or it goes out with the next reserve.
	 * Called now and then so that what a failed call left is sent even when nothing else
	 * happens.
	 */
	public void retryPending() {
		if (!this.sentWithReserve) {
			flushIfIdle();
		}
	}

	/**
	 * Send everything pending, waiting for a flush under way; stops at the first failed call.
	 * @return whether nothing is left pending
	 */
	public boolean flush() {
		this.flushLock.lock();
		try {
			while (!this.pending.isEmpty()) {
				if (!send()) {
					return false;
				}
			}
			return true;
		}
		finally {
			this.flushLock.unlock();
		}
	}

	/**
	 * How many acknowledgements wait to be sent.
	 * @return the count
	 */
	public int pendingCount() {
		return this.pending.size();
	}

	/**
	 * Record in Redis that a job reserved ahead starts, before its handler runs, so that losing
	 * it from now on counts against its max attempts (a job only reserved ahead counts under a
	 * wider limit). One call records the starts of every thread starting such a job at once and
	 * of the jobs next in line, together with the acknowledgements pending: those next in line
	 * then start without a call of their own. When Redis does not answer that call the job runs
	 * anyway (its loss would still count under the wider limit).
	 * @param job the job about to start
	 * @param next the jobs reserved ahead next in line, whose starts are recorded with it
	 * @return whether it may run: {@code false} when its lease was lost or given up meanwhile
	 */
	public boolean recordStart(RunningJob job, List<RunningJob> next) {
		if (this.starts == null || job.isLost()) {
			return !job.isLost();
		}
		request(job);
		for (RunningJob other : next) {
			request(other);
		}
		this.flushLock.lock();
		try {
			if (job.startResult() == null) {
				// not carried by a call that ended meanwhile (or that call failed): send it now
				request(job);
				send();
			}
		}
		finally {
			this.flushLock.unlock();
		}
		AckResult result = job.startResult();
		if (result == null) {
			// its partition did not answer: the job runs (holding a thread until that partition is
			// back would stall the others), and a loss of it still counts under the wider limit
			logger.debug("Start of job {} of queue '{}' not recorded: its partition did not answer", job.job().id(),
					this.queue);
			return true;
		}
		if (result != AckResult.OK) {
			if (job.loseLease()) {
				logger.warn("Job {} of queue '{}' does not run here: its lease was lost before it started ({})",
						job.job().id(), this.queue, result);
			}
			return false;
		}
		return true;
	}

	private void request(RunningJob job) {
		if (job.requestStart()) {
			this.marks.add(new StartMark(job));
		}
	}

	private boolean send() {
		List<JobRef> batch = take();
		List<StartMark> started = new ArrayList<>();
		StartMark mark;
		while ((mark = this.marks.poll()) != null) {
			started.add(mark);
		}
		if (batch.isEmpty() && started.isEmpty()) {
			return true;
		}
		List<AckResult> results;
		try {
			if (started.isEmpty()) {
				results = this.operations.completeAll(this.queue, batch);
			}
			else {
				JobStarts.Result both = this.starts.startAndComplete(this.queue,
						started.stream().map((m) -> m.job().job().ref()).toList(), batch);
				for (int i = 0; i < started.size(); i++) {
					started.get(i).job().startRecorded(both.starts().get(i));
				}
				if (both.failure() != null) {
					// a partition that did not answer: its completions are kept, the others are done
					List<JobRef> kept = new ArrayList<>();
					List<JobRef> done = new ArrayList<>();
					for (int i = 0; i < batch.size(); i++) {
						AckResult result = both.completions().get(i);
						if (result == null) {
							kept.add(batch.get(i));
						}
						else {
							done.add(batch.get(i));
						}
					}
					putBack(kept);
					logger.debug("Could not send {} completions of queue '{}' to a partition; kept", kept.size(),
							this.queue, both.failure());
					batch = done;
				}
				results = both.completions().stream().filter((result) -> result != null).toList();
			}
		}
		catch (RuntimeException ex) {
			for (StartMark m : started) {
				m.job().startRecorded(null);
			}
			// the starting threads try again; completions are kept for the next call: the jobs are
			// delivered again only if none gets through before their leases run out and someone
			// else reserves them
			if (batch.isEmpty()) {
				logger.debug("Could not record {} starts of queue '{}'", started.size(), this.queue, ex);
				return false;
			}
			putBack(batch);
			if (this.failedSends.getAndIncrement() == 0) {
				logger.warn("Could not send {} completions of queue '{}'; kept and sent again with the next call",
						batch.size(), this.queue, ex);
			}
			else {
				logger.debug("Could not send {} completions of queue '{}' again; kept", batch.size(), this.queue, ex);
			}
			return false;
		}
		for (JobRef job : batch) {
			this.unconfirmed.remove(job);
		}
		int failures = this.failedSends.getAndSet(0);
		if (failures > 0) {
			logger.info("Sent {} kept completions of queue '{}' after {} failed calls", batch.size(), this.queue,
					failures);
		}
		logRefusals(batch, results);
		return true;
	}

	private void logRefusals(List<JobRef> batch, List<AckResult> results) {
		for (int i = 0; i < results.size(); i++) {
			AckResult result = results.get(i);
			if (result == AckResult.STALE_TOKEN) {
				logger.warn("Completion of job {} in queue '{}' refused: its lease ran out and someone else reserved "
						+ "it since (it runs again there)", batch.get(i).id(), this.queue);
			}
			else if (result == AckResult.NOT_FOUND) {
				logger.info("Completion of job {} in queue '{}' found no job: already completed or gone",
						batch.get(i).id(), this.queue);
			}
		}
	}

	/**
	 * The fetch loop sent acknowledgements it took with {@link #waiting} ahead of its wait: with
	 * their results (as Redis answered them) they are confirmed; without (the call failed, or was
	 * not made) they are kept and sent again at once.
	 * @param jobs the acknowledgements
	 * @param results their results, in order, or {@code null}
	 */
	public void answered(List<JobRef> jobs, @Nullable List<AckResult> results) {
		if (this.aheadOfWait == jobs) {
			this.aheadOfWait = null;
		}
		if (results == null) {
			putBack(jobs);
			flushIfIdle();
			return;
		}
		for (JobRef job : jobs) {
			this.unconfirmed.remove(job);
		}
		logRefusals(jobs, results);
	}

	/** A start to record: the answer goes to the job ({@link RunningJob#startRecorded}). */
	private record StartMark(RunningJob job) {
	}

}
