package io.github.redisqueue.core;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * Producing jobs and consuming them by hand. Every call is one round trip to Redis (a bulk
 * enqueue one per chunk) and one atomic script.
 *
 * <p>The pull side is for consumers that are not listener threads, such as people working
 * through a web page: {@link #reserve} hands out jobs under a lease; the holder then calls
 * {@link #complete}, {@link #retry}, {@link #deadLetter}, {@link #extend} or {@link #release}
 * with the job's {@link JobRef}, and may report its {@link #progress} meanwhile. A lease that
 * runs out puts the job back in the queue, and the old holder's token is refused from then on.
 *
 * @since 0.1.0
 * @see QueueTemplate
 */
public interface QueueOperations {

	/** The largest serialized progress {@link #progress} accepts, in bytes (4 KB). */
	int MAX_PROGRESS_SIZE = 4096;

	/**
	 * Enqueue one job with default options.
	 * @param queue the queue name
	 * @param payload the payload, serialized as JSON
	 * @return the job id
	 */
	default EnqueueResult enqueue(String queue, Object payload) {
		return enqueue(queue, payload, JobOptions.defaults());
	}

	/**
	 * Enqueue one job.
	 * @param queue the queue name
	 * @param payload the payload, serialized as JSON
	 * @param options delay, priority, uniqueness, expiry, attempts, headers
	 * @return the job id, and whether it was refused as a duplicate; or, for a transaction-aware
	 * template inside a transaction, {@link EnqueueResult#DEFERRED}: the job is created when the
	 * transaction commits, so it has no id yet (see {@link QueueTemplate#setTransactionAware})
	 * @throws PayloadTooLargeException when the serialized payload is over the limit
	 * @throws IllegalArgumentException when the queue name is invalid
	 */
	EnqueueResult enqueue(String queue, Object payload, JobOptions options);

	/**
	 * Enqueue many jobs with the same options in as few round trips as possible. Either every
	 * payload is checked and serialized before anything is sent, so one bad payload sends none.
	 * @param queue the queue name
	 * @param payloads the payloads
	 * @param options options shared by every job
	 * @return one result per payload, in order ({@link EnqueueResult#DEFERRED} each when the enqueue
	 * waits for a transaction to commit)
	 */
	List<EnqueueResult> enqueueAll(String queue, Collection<?> payloads, JobOptions options);

	/**
	 * Reserve up to {@code max} jobs under a lease, for this template's worker identity.
	 * @param queue the queue name
	 * @param max the most jobs to take
	 * @param lease how long the jobs are held before they go back to the queue
	 * @return the jobs, possibly none
	 */
	List<ReservedJob> reserve(String queue, int max, Duration lease);

	/**
	 * Reserve up to {@code max} jobs and read their payloads as {@code type}. A job whose payload
	 * cannot be read is dead-lettered with the reason and left out; the others are returned.
	 * @param queue the queue name
	 * @param max the most jobs to take
	 * @param lease the lease length
	 * @param type the payload type
	 * @param <T> the payload type
	 * @return the jobs with readable payloads
	 */
	<T> List<Job<T>> reserve(String queue, int max, Duration lease, Class<T> type);

	/**
	 * Reserve for a named worker and report what a fetch loop needs to block efficiently.
	 * @param queue the queue name
	 * @param max the most jobs to take
	 * @param lease the lease length
	 * @param workerId the identity recorded on the leases
	 * @return the jobs and the next due time of a delayed job
	 */
	Reservation reserveBatch(String queue, int max, Duration lease, String workerId);

	/**
	 * Acknowledge jobs and reserve the next ones in the same script call ("finish and fetch
	 * next"), as a fetch loop does to spend one round trip where two would do.
	 * @param queue the queue name
	 * @param max the most jobs to take
	 * @param lease the lease length
	 * @param workerId the identity recorded on the leases
	 * @param completions jobs to complete first
	 * @return the jobs, the next due time, and how many completions were refused (stale tokens)
	 */
	Reservation reserveBatch(String queue, int max, Duration lease, String workerId, Collection<JobRef> completions);

	/**
	 * Finish and fetch, with the max attempts of a listener: when {@code maxAttempts} is positive
	 * it is written on every job handed out and replaces the job's own, for its failures and
	 * for the losses of its lease alike.
	 * @param queue the queue name
	 * @param max the most jobs to take
	 * @param lease the lease length
	 * @param workerId the identity recorded on the leases
	 * @param completions jobs to complete first
	 * @param maxAttempts max attempts from 1 to 10,000, or 0 to keep each job's own
	 * @return the jobs, the next due time, the server time, and how completions fared
	 */
	Reservation reserveBatch(String queue, int max, Duration lease, String workerId, Collection<JobRef> completions,
			int maxAttempts);

	/**
	 * Finish and fetch for a consumer that reserves jobs ahead of free threads (prefetch): the
	 * first {@code startNow} jobs handed out start at once, the others wait for a thread. A job
	 * whose holder is lost while it was only reserved ahead was most likely not running, so that
	 * loss counts under a wider limit (three times its max attempts) than the loss of a job that
	 * had started.
	 * @param queue the queue name
	 * @param max the most jobs to take
	 * @param lease the lease length
	 * @param workerId the identity recorded on the leases
	 * @param completions jobs to complete first
	 * @param maxAttempts max attempts from 1 to 10,000, or 0 to keep each job's own
	 * @param startNow how many of the jobs handed out start at once
	 * @return the jobs, the next due time, the server time, and how completions fared
	 */
	Reservation reserveBatch(String queue, int max, Duration lease, String workerId, Collection<JobRef> completions,
			int maxAttempts, int startNow);

	/**
	 * Acknowledge a job: it leaves Redis (or the completed set, when completed jobs are kept).
	 * @param queue the queue name
	 * @param job the id and lease token
	 * @return {@link AckResult#STALE_TOKEN} when the lease is no longer this token's
	 */
	AckResult complete(String queue, JobRef job);

	/**
	 * Acknowledge many jobs in one call.
	 * @param queue the queue name
	 * @param jobs ids and tokens
	 * @return one result per job, in order
	 */
	List<AckResult> completeAll(String queue, Collection<JobRef> jobs);

	/**
	 * Record a failed attempt and run the job again after {@code delay}, or dead-letter it when
	 * its attempts are used up.
	 * @param queue the queue name
	 * @param job the id and lease token
	 * @param error the error text kept with the job
	 * @param delay back-off before the next attempt
	 * @return whether a retry was scheduled or the job died
	 */
	FailResult retry(String queue, JobRef job, String error, Duration delay);

	/**
	 * Dead-letter a job now, whatever attempts it has left.
	 * @param queue the queue name
	 * @param job the id and lease token
	 * @param error the reason kept with the job
	 * @return {@link FailResult#DEAD_LETTERED} unless the token is stale or the job gone
	 */
	FailResult deadLetter(String queue, JobRef job, String error);

	/**
	 * Extend a lease to {@code lease} from now.
	 * @param queue the queue name
	 * @param job the id and lease token
	 * @param lease the new lease length
	 * @return the new deadline, or why it was refused
	 */
	ExtendResult extend(String queue, JobRef job, Duration lease);

	/**
	 * Extend many leases in one call.
	 * @param queue the queue name
	 * @param jobs ids and tokens
	 * @param lease the new lease length
	 * @return one result per job, in order
	 */
	List<ExtendResult> extendAll(String queue, Collection<JobRef> jobs, Duration lease);

	/**
	 * Record how far a job has come, for operators to see (in {@link QueueAdminOperations#job},
	 * the {@code queues} endpoint and the dashboard) while it runs. The value, a number or a small
	 * object, is serialized like payloads and results and replaces the job's previous progress; it
	 * is kept through a failed attempt or a lost lease (a dead letter shows how far its last
	 * attempt came), and cleared when the job completes and when a dead job is retried. It is
	 * written only while {@code job}'s lease holds: a holder whose lease was taken back (it ran out,
	 * or the job was reserved again since) writes nothing.
	 * @param queue the queue name
	 * @param job the id and lease token
	 * @param progress the progress, or {@code null} to clear it
	 * @return whether it was written: {@code false} when the lease is no longer this token's, or
	 * the job is gone
	 * @throws IllegalArgumentException when the serialized progress is larger than
	 * {@link #MAX_PROGRESS_SIZE}
	 * @since 0.1.0
	 */
	boolean progress(String queue, JobRef job, @Nullable Object progress);

	/**
	 * Give a job that never reached a handler back to the queue at its place, counting nothing.
	 * @param queue the queue name
	 * @param job the id and lease token
	 * @return {@link AckResult#STALE_TOKEN} when the lease is no longer this token's
	 */
	AckResult release(String queue, JobRef job);

	/**
	 * Give many jobs back in one call.
	 * @param queue the queue name
	 * @param jobs ids and tokens
	 * @return one result per job, in order
	 */
	List<AckResult> releaseAll(String queue, Collection<JobRef> jobs);

	/**
	 * Give many jobs back in one call. Jobs whose handler ran without an outcome
	 * ({@code started}, for example still running when a shutdown timeout ran out) count as lost,
	 * like a job whose lease ran out: a job lost as often as its max attempts is dead-lettered,
	 * and a started job no longer expires. Jobs that never started count nothing.
	 * @param queue the queue name
	 * @param jobs ids and tokens
	 * @param started whether their handlers ran
	 * @return one result per job, in order
	 */
	List<AckResult> releaseAll(String queue, Collection<JobRef> jobs, boolean started);

	/**
	 * Take back every job that a worker identity holds in a queue, for example when a worker
	 * restarts with the same identity. Whether those jobs had started is unknown, so each counts
	 * as lost (a job that crashed its worker reaches the dead letters after max attempts
	 * restarts). Walks the in-flight jobs in bounded slices, one script call each.
	 * @param queue the queue name
	 * @param workerId the worker identity
	 * @return the number of jobs given back
	 */
	int releaseWorker(String queue, String workerId);

	/**
	 * Read a reserved job's payload as the consumer's type.
	 * @param job the reserved job
	 * @param type the type
	 * @param <T> the type
	 * @return the payload
	 * @throws io.github.redisqueue.support.converter.JobConversionException when it cannot be read
	 */
	<T> T readPayload(ReservedJob job, java.lang.reflect.Type type);

	/**
	 * Start a batch of sub-jobs of the queue: at most its cap of them hold a lease at once,
	 * cluster-wide, and one completion job is enqueued when every sub-job ended.
	 * @param queue the queue of the sub-jobs
	 * @return a builder; {@link BatchBuilder#submit()} or {@link BatchBuilder#open()} creates it
	 */
	BatchBuilder batch(String queue);

	/**
	 * A handle on an existing batch (nothing is read until it is used).
	 * @param queue the queue of the sub-jobs
	 * @param batchId the batch id
	 * @return the handle
	 */
	Batch batch(String queue, String batchId);

	/**
	 * The progress of a batch.
	 * @param queue the queue of the sub-jobs
	 * @param batchId the batch id
	 * @return the status, or empty when there is no such batch (never opened, or finished longer
	 * ago than its retention)
	 */
	Optional<BatchStatus> batchStatus(String queue, String batchId);

	/**
	 * Cancel a batch: its waiting sub-jobs are removed (in bounded script calls), admitted ones
	 * that hold no lease too, running ones finish; then it finishes as
	 * {@link BatchState#CANCELLED}, with its completion job. Cancelling a finished batch changes
	 * nothing.
	 * @param queue the queue of the sub-jobs
	 * @param batchId the batch id
	 * @return the status after the call
	 * @throws QueueBatchException if there is no such batch
	 */
	BatchStatus cancelBatch(String queue, String batchId);

	/**
	 * A future of the batch's final status: completed when the batch finishes (on the pub/sub
	 * notification, with a read every two seconds as a fallback), exceptionally when the batch
	 * does not exist.
	 * @param queue the queue of the sub-jobs
	 * @param batchId the batch id
	 * @return the future
	 */
	CompletableFuture<BatchStatus> batchCompletion(String queue, String batchId);

	/**
	 * Results of a batch's sub-jobs, in the order they were added.
	 * @param queue the queue of the sub-jobs
	 * @param batchId the batch id
	 * @param offset first sub-job, from 0
	 * @param count how many, from 1 to 1,000
	 * @param type the result type
	 * @param <T> the result type
	 * @return the results (empty past the end or for no such batch)
	 */
	<T> List<JobResult<T>> batchResults(String queue, String batchId, long offset, int count, Class<T> type);

	/**
	 * Store a job's result, kept for the result retention. The listener container calls it with
	 * the value a handler method returns; a person's consumer calls it before completing.
	 * @param queue the queue
	 * @param jobId the job id
	 * @param result the result
	 * @return whether it was stored ({@code false} when the result retention is zero)
	 * @throws io.github.redisqueue.QueueException if the serialized result is larger than the
	 * limit
	 */
	boolean storeResult(String queue, String jobId, Object result);

	/**
	 * The stored result of a job.
	 * @param queue the queue
	 * @param jobId the job id
	 * @param type the result type
	 * @param <T> the result type
	 * @return the result, or empty when none is stored
	 */
	<T> Optional<T> result(String queue, String jobId, Class<T> type);


}
