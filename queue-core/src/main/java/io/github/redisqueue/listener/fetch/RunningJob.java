package io.github.redisqueue.listener.fetch;

import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

/**
 * A job a container is running: which thread runs it, and whether its lease is still held.
 * Interrupting is guarded so a thread is never interrupted after it moved on to other work: once
 * the job is settled ({@link #stopExtending()}) or finished, a lost lease changes nothing, and the
 * check and the interrupt are one step, so the lease keeper cannot act on what it saw a moment
 * before (the handler thread may be sending other jobs' acknowledgements by then).
 */
public final class RunningJob {

	private final ReservedJob job;

	// marked in Redis as reserved ahead: its start is recorded before its handler runs
	private final boolean ahead;

	private @Nullable Thread thread;

	private boolean started;

	private boolean finished;

	// written under the lock, read without it
	private volatile boolean lost;

	private volatile boolean extendable = true;

	// set once a thread asked Redis to record this job's start (reset when that call failed)
	private final AtomicBoolean startRequested = new AtomicBoolean();

	// what Redis answered to the record of its start; null until then
	private volatile @Nullable AckResult startResult;

	/**
	 * @param job the job as it was reserved
	 */
	public RunningJob(ReservedJob job) {
		this(job, false);
	}

	/**
	 * @param job the job as it was reserved
	 * @param ahead whether Redis marked it as reserved ahead (see
	 * {@link io.github.redisqueue.core.Reservation#reservedAhead()})
	 */
	public RunningJob(ReservedJob job, boolean ahead) {
		this.job = job;
		this.ahead = ahead;
	}

	/**
	 * Whether Redis marked the job as reserved ahead: its start must be recorded before its
	 * handler runs.
	 * @return whether it was reserved ahead
	 */
	public boolean isAhead() {
		return this.ahead;
	}

	/**
	 * Claim the recording of this job's start for the calling thread's next call.
	 * @return whether the caller should send it: {@code false} when another call carries it
	 * already, or it was recorded
	 */
	public boolean requestStart() {
		return this.startResult == null && this.startRequested.compareAndSet(false, true);
	}

	/**
	 * What Redis answered to the record of this job's start.
	 * @param result the answer, or {@code null} when the call failed (the next one may carry it)
	 */
	public void startRecorded(@Nullable AckResult result) {
		if (result == null) {
			this.startRequested.set(false);
		}
		else {
			this.startResult = result;
		}
	}

	/**
	 * What Redis answered to the record of this job's start.
	 * @return the answer, or {@code null} while none came
	 */
	public @Nullable AckResult startResult() {
		return this.startResult;
	}

	/**
	 * The job as it was reserved.
	 * @return the job
	 */
	public ReservedJob job() {
		return this.job;
	}

	/**
	 * Record the thread that runs the job.
	 * @param thread the thread
	 * @return whether the job may run: {@code false} when its lease was given up before it started
	 */
	public synchronized boolean started(Thread thread) {
		if (this.lost) {
			return false;
		}
		this.thread = thread;
		this.started = true;
		return true;
	}

	/**
	 * Give up the lease of a job that has not started yet, so it can go back to the queue.
	 * @return whether the job had not started (and now never will here)
	 */
	public synchronized boolean abandonIfNotStarted() {
		if (this.started || this.finished) {
			return false;
		}
		this.lost = true;
		this.extendable = false;
		return true;
	}

	/**
	 * Whether a handler thread took the job (it may have finished since).
	 * @return whether it started
	 */
	public synchronized boolean hasStarted() {
		return this.started;
	}

	/** Record that the handler is done; no interrupt reaches the thread after this. */
	public synchronized void finished() {
		this.finished = true;
		this.thread = null;
	}

	/**
	 * Mark the lease as lost and interrupt the handler if it still runs, unless the job was
	 * settled or finished meanwhile (then nothing changes).
	 * @return whether the lease was marked lost now
	 */
	public synchronized boolean loseLease() {
		if (!this.extendable || this.lost || this.finished) {
			return false;
		}
		this.lost = true;
		this.extendable = false;
		if (this.thread != null) {
			this.thread.interrupt();
		}
		return true;
	}

	/**
	 * Stop extending this job's lease: it is being settled (acknowledged, failed, given back). No
	 * interrupt reaches its thread after this.
	 * @return whether the lease was still held: {@code false} when it was lost before
	 */
	public synchronized boolean stopExtending() {
		this.extendable = false;
		return !this.lost;
	}

	/**
	 * Whether the lease was lost: the result must not be acknowledged.
	 * @return whether it was lost
	 */
	public boolean isLost() {
		return this.lost;
	}

	/**
	 * Whether the lease keeper should still extend this job.
	 * @return whether to extend it
	 */
	public boolean isExtendable() {
		return this.extendable && !this.lost;
	}

}
