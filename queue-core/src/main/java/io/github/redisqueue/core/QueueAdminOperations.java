package io.github.redisqueue.core;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Inspection and maintenance of queues: counts, one job or a page of the jobs of one state (to
 * delete or run now), dead letters, open batches, pause, and the reaper.
 *
 * @since 0.1.0
 * @see QueueAdmin
 */
public interface QueueAdminOperations {

	/**
	 * Names of the queues that have seen an enqueue under this key prefix.
	 * @return the queue names, sorted
	 */
	Set<String> queues();

	/**
	 * Jobs per state and running totals of one queue, in one round trip.
	 * @param queue the queue name
	 * @return the counts
	 */
	QueueCounts counts(String queue);

	/**
	 * The counts of each partition of a queue spread over partitions, in partition order; for a
	 * queue of one partition, its counts alone.
	 * @param queue the queue name
	 * @return per partition, where its keys live and its counts
	 */
	default List<PartitionCounts> partitionCounts(String queue) {
		return List.of(new PartitionCounts(queue, 0, "", 0, counts(queue)));
	}

	/**
	 * Counts of many queues in one pipelined round trip (for health checks and gauges).
	 * @param queues the queue names
	 * @return counts by queue name, in the given order
	 */
	Map<String, QueueCounts> counts(Collection<String> queues);

	/**
	 * Record a worker's heartbeat; a worker silent for longer than {@code timeToLive} drops out
	 * of {@link #workers()}.
	 * @param worker the worker as it describes itself
	 * @param timeToLive how long the entry lives without another heartbeat
	 */
	void heartbeat(WorkerInfo worker, Duration timeToLive);

	/**
	 * Remove a worker from the registry on a clean stop (after it gave its leases back), so that
	 * it is not taken for a worker that died.
	 * @param worker the worker, with the queues it consumed
	 */
	void leave(WorkerInfo worker);

	/**
	 * Workers whose heartbeat ran out without a clean {@link #leave}, within the last hour (the
	 * reaper finds their jobs through each queue's own record of its consumers, see
	 * {@link #reapOnce()}).
	 * @return their ids
	 */
	List<String> silentWorkers();

	/**
	 * The workers whose heartbeat is still alive.
	 * @return the live workers
	 */
	List<WorkerInfo> workers();

	/**
	 * Every registered queue with its counts, and the live workers, in one pipelined round trip
	 * (plus one more the first time a queue is seen). Meant for health checks, gauges and
	 * dashboards; it never scans jobs.
	 * @return the overview
	 */
	QueueOverview overview();

	/**
	 * A queue's jobs completed and failed per minute over the last 24 hours, as the scripts count
	 * them in Redis: the same for every reader, one round trip (one read of a few KB per
	 * partition).
	 * @param queue the queue name
	 * @return its history, oldest minute first
	 */
	QueueHistory history(String queue);

	/**
	 * One job with its state.
	 * @param queue the queue name
	 * @param id the job id
	 * @return the job, or empty when it does not exist (any more)
	 */
	Optional<JobInfo> job(String queue, String id);

	/**
	 * A page of the jobs of one state, each complete as {@link #job(String, String)} reads it, read
	 * in one script call (a page of a partitioned queue: calls per partition for the order of its
	 * first {@code offset + count} jobs, then one per partition that holds jobs of the page). Each
	 * state is listed by the score of its index (see {@link JobOrder}): ready jobs in the order
	 * they will be handed out (priority, then first in, first out), delayed jobs by due time,
	 * active jobs by lease deadline, dead jobs by time of death. Jobs waiting at their batch or
	 * group for a place are in no index and not listed. A ready job whose stored form cannot be
	 * read (damaged, to be dead-lettered by the reserve that takes it) is listed in its place with
	 * state {@link JobState#UNKNOWN}, its {@link JobInfo#lastError() last error} saying why. Jobs
	 * that change state between two pages (or between the two steps of a partitioned queue's page)
	 * move the later pages.
	 * @param queue the queue name
	 * @param state {@link JobState#READY}, {@link JobState#DELAYED}, {@link JobState#ACTIVE} or
	 * {@link JobState#DEAD}
	 * @param order the order of the state's index to page through
	 * @param offset jobs to skip
	 * @param count most jobs to return, from 1 to {@value QueueAdmin#MAX_JOB_PAGE}; offset plus count
	 * at most {@value QueueAdmin#MAX_JOB_PAGE_END}
	 * @return the page
	 * @throws IllegalArgumentException for another state, or a page out of those bounds
	 */
	List<JobInfo> jobs(String queue, JobState state, JobOrder order, int offset, int count);

	/**
	 * Delete one job that holds no lease: ready, delayed, dead, completed (while retained), or
	 * waiting at its batch or group. It leaves the queue at once with its payload; a uniqueness key
	 * it holds (even one kept after completion) is free again; a job of a batch or group ends there
	 * as cancelled, so that the next waiting job is admitted and a batch whose last open sub-job it
	 * was finishes. Counted in the queue's {@link QueueCounts#total(String) total} {@code deleted}.
	 * @param queue the queue name
	 * @param id the job id
	 * @return whether the job existed and is now deleted
	 * @throws IllegalStateException if the job is active (a worker holds it under a lease): it can
	 * be deleted once it ends; nothing is changed
	 */
	boolean deleteJob(String queue, String id);

	/**
	 * Delete a job only while it is delayed, as {@link #deleteJob} deletes it: a job that is no
	 * longer delayed (run now, taken, ended) is left alone.
	 * @param queue the queue name
	 * @param id the job id
	 * @return whether the job was delayed and is now deleted
	 */
	boolean deleteDelayed(String queue, String id);

	/**
	 * Run a delayed job now (a job enqueued with a delay, or waiting for a retry): it becomes ready
	 * at the end of its priority level, as if it had fallen due now, and a blocked consumer wakes.
	 * A job past its expiry is dead-lettered as expired instead, and one whose record is damaged
	 * dead-lettered with the reason, as when they fall due.
	 * @param queue the queue name
	 * @param id the job id
	 * @return whether the job was delayed and is now ready
	 */
	boolean promote(String queue, String id);

	/**
	 * A page of dead letters, most recent first.
	 * @param queue the queue name
	 * @param offset jobs to skip
	 * @param count most jobs to return
	 * @return the page
	 */
	List<DeadJob> deadLetters(String queue, int offset, int count);

	/**
	 * A page of the queue's open batches (not finished: open, sealed or being cancelled), oldest
	 * first, each with its progress, read in one script call. A batch that finishes between two
	 * pages moves the later ones up by one.
	 * @param queue the queue name
	 * @param offset batches to skip
	 * @param count most batches to return, from 1 to {@value QueueAdmin#MAX_BATCH_PAGE}
	 * @return the page
	 * @see QueueOperations#batchStatus(String, String)
	 */
	List<BatchStatus> batches(String queue, int offset, int count);

	/**
	 * The progress of one batch, open or finished (while it is kept), as
	 * {@link QueueOperations#batchStatus(String, String)} reads it.
	 * @param queue the queue of its sub-jobs
	 * @param id the batch id
	 * @return the status, or empty when there is no such batch (never opened, or finished longer
	 * ago than its retention)
	 */
	Optional<BatchStatus> batch(String queue, String id);

	/**
	 * Cancel a batch, as {@link QueueOperations#cancelBatch(String, String)} does: its waiting
	 * sub-jobs and those admitted but holding no lease are removed, running ones finish, then it
	 * finishes as {@link BatchState#CANCELLED} with its completion job. Cancelling a finished
	 * batch changes nothing.
	 * @param queue the queue of its sub-jobs
	 * @param id the batch id
	 * @return the status after the call
	 * @throws QueueBatchException if there is no such batch
	 */
	BatchStatus cancelBatch(String queue, String id);

	/**
	 * The most recently finished batches of a queue that are still kept (see
	 * the completed-job retention), latest first, read in one script call per partition.
	 * @param queue the queue of their sub-jobs
	 * @param count most batches to return, from 1 to {@value QueueAdmin#MAX_BATCH_PAGE}
	 * @return the batches
	 */
	List<BatchStatus> finishedBatches(String queue, int count);

	/**
	 * The job holding a uniqueness key (a key kept after its job completed counts while its window
	 * lasts).
	 * @param queue the queue name
	 * @param key the uniqueness key
	 * @return the job's id, or empty when no job holds the key
	 */
	Optional<String> jobIdByUniqueKey(String queue, String key);

	/**
	 * The job an idempotency key names while its window lasts.
	 * @param queue the queue name
	 * @param key the idempotency key
	 * @return the job's id, or empty when the key names none (any more)
	 */
	Optional<String> jobIdByIdempotencyKey(String queue, String key);

	/**
	 * One job with what its record holds about its past (see {@link JobHistory}).
	 * @param queue the queue name
	 * @param id the job id
	 * @return the history, or empty when the job does not exist (any more)
	 */
	Optional<JobHistory> jobHistory(String queue, String id);

	/**
	 * Where a queue stands against the rate limit this application's settings give it, with the
	 * queue's counts of reserve calls the limit cut short.
	 * @param queue the queue name
	 * @return the status
	 */
	RateLimitStatus rateLimitStatus(String queue);

	/**
	 * Put a dead job back in the queue with no attempts used.
	 * @param queue the queue name
	 * @param id the job id
	 * @return whether it was dead and is now ready
	 */
	boolean retryDead(String queue, String id);

	/**
	 * Put every dead job back in the queue (in bounded steps).
	 * @param queue the queue name
	 * @return how many were put back
	 */
	long retryAllDead(String queue);

	/**
	 * Delete one dead job.
	 * @param queue the queue name
	 * @param id the job id
	 * @return whether it was dead and is now deleted
	 */
	boolean purgeDead(String queue, String id);

	/**
	 * Delete every dead job (in bounded steps).
	 * @param queue the queue name
	 * @return how many were deleted
	 */
	long purgeAllDead(String queue);

	/**
	 * Stop handing out jobs of a queue; enqueues still work and leases already held run on.
	 * @param queue the queue name
	 * @return whether the queue was running before
	 */
	boolean pause(String queue);

	/**
	 * Hand out jobs of a paused queue again.
	 * @param queue the queue name
	 * @return whether the queue was paused before
	 */
	boolean resume(String queue);

	/**
	 * One reaper pass over one queue: the jobs of its consumers whose heartbeat ran out and
	 * expired leases go back to ready (or dead when lost as often as their max attempts), due
	 * delayed jobs are promoted, expired jobs dead-lettered, completed and dead jobs past their
	 * retention deleted. Each step is bounded (the reap batch, and one slice of in-flight jobs
	 * for silent workers). Safe to run from many processes at once.
	 * @param queue the queue name
	 * @return what the pass did
	 */
	ReapResult reapOnce(String queue);

	/**
	 * One reaper pass over every known queue. Jobs held by a worker whose heartbeat ran out
	 * (lease identity: the worker id, or the worker id, {@code #} and a listener id) go back to
	 * ready before their leases run out, counted as lost, as when a lease expires. Liveness is
	 * read inside the script that takes the jobs back, from the queue's own record of its
	 * consumers, which every heartbeat renews: a worker whose heartbeat resumed keeps its jobs.
	 * @return what the passes did, summed
	 */
	ReapResult reapOnce();

}
