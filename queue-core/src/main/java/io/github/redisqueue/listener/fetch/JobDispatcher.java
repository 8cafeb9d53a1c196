package io.github.redisqueue.listener.fetch;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.github.redisqueue.core.Reservation;
import io.github.redisqueue.core.ReservedJob;

/**
 * Hands the jobs a fetch loop reserved to its executor: each takes a slot ({@link JobSlots#hold}) and a task that
 * runs the next held job in line. Where the executor never runs a task on the thread that gives it (a pool of the
 * container's own), the jobs of a reserve sent behind a wait are handed over on the client's I/O thread as its
 * reply arrives ({@link #handOff}): the first job starts on a handler thread without waiting for the fetch loop's
 * thread to wake.
 */
final class JobDispatcher {

	private final JobSlots slots;

	private final Executor executor;

	private final Consumer<RunningJob> handler;

	private final boolean early;

	/**
	 * @param slots the loop's slots
	 * @param executor runs the jobs
	 * @param handler runs a job on its handler thread
	 * @param early whether {@code executor} is known never to run a task on the thread that gives it, nor to block
	 * that thread: only then are jobs handed over on the I/O thread
	 */
	JobDispatcher(JobSlots slots, Executor executor, Consumer<RunningJob> handler, boolean early) {
		this.slots = slots;
		this.executor = executor;
		this.handler = handler;
		this.early = early;
	}

	/** Whether jobs may be handed over on the client's I/O thread ({@link #handOff}). */
	boolean early() {
		return this.early;
	}

	/**
	 * The ids of a reservation's jobs that Redis marked as reserved ahead (their starts are recorded later).
	 * @param reservation what a reserve took
	 * @return those ids
	 */
	static Set<String> ahead(Reservation reservation) {
		return reservation.reservedAhead().isEmpty() ? Set.of() : new HashSet<>(reservation.reservedAhead());
	}

	/**
	 * Hold a job and give the executor a task that runs it. A job the executor refuses never starts: its slot is
	 * freed, and the failure thrown (the caller gives the job back to the queue).
	 * @param job the job
	 * @param ahead whether Redis marked it as reserved ahead
	 */
	void dispatch(ReservedJob job, boolean ahead) {
		RunningJob running = this.slots.hold(job, ahead);
		try {
			this.executor.execute(() -> this.slots.runNext(this.handler));
		}
		catch (RuntimeException | Error ex) {
			// rejected, or the executor is broken: the job never started
			this.slots.release(running);
			throw ex;
		}
	}

	/**
	 * On the client's I/O thread, as the reply of a reserve sent behind a wait arrives: dispatch its jobs in order
	 * while the loop is active. It never throws and never calls Redis: a job the executor refuses is left, with
	 * those after it, to the loop's thread, which dispatches them again or gives them back.
	 * @param reservation what the reserve took
	 * @param active whether the loop still runs
	 * @return how many of its jobs, the first ones, were dispatched
	 */
	int handOff(Reservation reservation, BooleanSupplier active) {
		List<ReservedJob> jobs = reservation.jobs();
		int handed = 0;
		try {
			Set<String> ahead = ahead(reservation);
			while (handed < jobs.size() && active.getAsBoolean()) {
				ReservedJob job = jobs.get(handed);
				dispatch(job, ahead.contains(job.id()));
				handed++;
			}
		}
		catch (RuntimeException | Error ex) {
			// not logged here: the loop's thread dispatches the first job left again, meets the same failure, and
			// reports it and gives the rest back as it would have without this hand-off
		}
		return handed;
	}

}
