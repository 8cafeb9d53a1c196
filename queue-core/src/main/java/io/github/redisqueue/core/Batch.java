package io.github.redisqueue.core;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redisqueue.core.batch.QueueBatches;

/**
 * A handle on one batch of sub-jobs of a queue: feed it while it is open, seal it, follow its
 * progress, wait for its end, read its results, or cancel it. Obtained from
 * {@link QueueOperations#batch(String)} (a new batch) or {@link QueueOperations#batch(String, String)}
 * (an existing one). Thread safe; every call is a Redis call.
 *
 * <pre class="code">
 * Batch batch = queues.batch("resize").maxConcurrency(3).onComplete("resize-done").open();
 * for (List&lt;Piece&gt; chunk : chunks) {
 *     batch.addAll(chunk);
 * }
 * batch.seal();
 * BatchStatus outcome = batch.completion().get(10, TimeUnit.MINUTES);
 * </pre>
 *
 * @since 0.1.0
 */
public final class Batch {

	private final QueueBatches batches;

	private final String queue;

	private final String id;

	Batch(QueueBatches batches, String queue, String id) {
		this.batches = batches;
		this.queue = queue;
		this.id = id;
	}

	/** The batch id. */
	public String id() {
		return this.id;
	}

	/** The queue of its sub-jobs. */
	public String queue() {
		return this.queue;
	}

	/**
	 * Add one sub-job to the open batch.
	 * @param payload the payload
	 * @return the job id
	 * @throws QueueBatchException if the batch is not open
	 */
	public String add(Object payload) {
		return addAll(List.of(payload)).get(0);
	}

	/**
	 * Add sub-jobs to the open batch, in script calls of at most the enqueue chunk (at most
	 * 1,000) each. Sub-jobs start at once, within the cap, while the batch is still open.
	 * @param payloads the payloads
	 * @return the job ids, in order
	 * @throws QueueBatchException if the batch is not open (a call that fails part way has added
	 * the chunks before the failing one)
	 */
	public List<String> addAll(Collection<?> payloads) {
		return this.batches.add(this.queue, this.id, payloads);
	}

	/**
	 * Seal the batch: no more sub-jobs. It finishes when its last sub-job ends, at once if they all
	 * ended already.
	 * @return the status after sealing
	 * @throws QueueBatchException if the batch is not open
	 */
	public BatchStatus seal() {
		return this.batches.seal(this.queue, this.id);
	}

	/**
	 * Cancel the batch: its waiting sub-jobs are removed, running ones finish; it then finishes as
	 * {@link BatchState#CANCELLED} (and its completion job, if any, is enqueued).
	 * @return the status after the call
	 */
	public BatchStatus cancel() {
		return this.batches.cancel(this.queue, this.id);
	}

	/**
	 * The progress now.
	 * @return the status
	 * @throws QueueBatchException if there is no such batch (never opened, or its retention ran out)
	 */
	public BatchStatus status() {
		return this.batches.status(this.queue, this.id)
			.orElseThrow(() -> QueueBatchException.missing(this.queue, this.id));
	}

	/**
	 * A future completed with the final status when the batch finishes (by a notification, with
	 * a periodic read as a fallback), or completed exceptionally if the batch disappears.
	 * @return the future
	 */
	public CompletableFuture<BatchStatus> completion() {
		return this.batches.watch(this.queue, this.id);
	}

	/**
	 * Results of the sub-jobs in the order they were added.
	 * @param <T> the result type
	 * @param type the result type
	 * @param offset first sub-job, from 0
	 * @param count how many, from 1 to 1,000
	 * @return the results
	 */
	public <T> List<JobResult<T>> results(Class<T> type, long offset, int count) {
		return this.batches.results(this.queue, this.id, offset, count, type);
	}

	@Override
	public String toString() {
		return "Batch[queue=" + this.queue + ", id=" + this.id + "]";
	}

}
