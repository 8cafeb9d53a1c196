package io.github.redisqueue.core;

import java.util.Collection;
import java.util.Objects;

import io.github.redisqueue.core.batch.QueueBatches;

/**
 * Builds a batch: sub-jobs of one queue of which at most {@link #maxConcurrency(int)} hold a
 * lease at once, cluster-wide, with one completion job when every sub-job ended. Obtained from
 * {@link QueueOperations#batch(String)}.
 *
 * <pre class="code">
 * Batch batch = queues.batch("resize")
 *     .priority(50)
 *     .maxConcurrency(3)
 *     .onComplete("resize-done", request)
 *     .addAll(pieces)
 *     .submit();
 * </pre>
 *
 * @since 0.1.0
 */
public final class BatchBuilder {

	private final QueueBatches batches;

	private final String queue;

	private final BatchDefinition definition = new BatchDefinition();

	BatchBuilder(QueueBatches batches, String queue) {
		this.batches = batches;
		this.queue = queue;
	}

	/**
	 * Priority of every sub-job, from -1000 to 1000 (higher first); 0 by default.
	 * @param priority the priority
	 * @return this builder
	 */
	public BatchBuilder priority(int priority) {
		this.definition.priority(priority);
		return this;
	}

	/**
	 * The cap: at most this many sub-jobs of the batch hold a lease at any instant, whatever the
	 * number of workers. From 1 to {@value QueueSettings#MAX_CONCURRENCY_CAP}, which is the default.
	 * @param maxConcurrency the cap
	 * @return this builder
	 */
	public BatchBuilder maxConcurrency(int maxConcurrency) {
		this.definition.maxConcurrency(maxConcurrency);
		return this;
	}

	/**
	 * Enqueue one completion job to the given queue when the batch finishes. Its payload is the
	 * {@link io.github.redisqueue.support.BatchCompletion}; its handler may declare a
	 * {@code BatchCompletion} parameter.
	 * @param queue the completion queue (may be the batch's own queue)
	 * @return this builder
	 */
	public BatchBuilder onComplete(String queue) {
		this.definition.onComplete(queue, null);
		return this;
	}

	/**
	 * Enqueue one completion job with the given payload to the given queue when the batch
	 * finishes; its handler may also declare a {@code BatchCompletion} parameter for the counts.
	 * @param queue the completion queue (may be the batch's own queue)
	 * @param payload the completion job's payload, serialized now
	 * @return this builder
	 */
	public BatchBuilder onComplete(String queue, Object payload) {
		this.definition.onComplete(queue, Objects.requireNonNull(payload, "payload"));
		return this;
	}

	/**
	 * Give the batch an id of your own (a request id, say) instead of a generated one: 1 to 100
	 * letters, digits, '.', '_', ':' or '-'. Opening a batch whose id is taken fails.
	 * @param id the id
	 * @return this builder
	 */
	public BatchBuilder id(String id) {
		this.definition.id(id);
		return this;
	}

	/**
	 * Attempts each sub-job may use, from 1 to 10,000; the template's default otherwise.
	 * @param maxAttempts the attempts
	 * @return this builder
	 */
	public BatchBuilder maxAttempts(int maxAttempts) {
		this.definition.maxAttempts(maxAttempts);
		return this;
	}

	/**
	 * A string header stored with every sub-job.
	 * @param name the name
	 * @param value the value
	 * @return this builder
	 */
	public BatchBuilder header(String name, String value) {
		this.definition.header(name, value);
		return this;
	}

	/**
	 * Add a sub-job, sent by {@link #open()} or {@link #submit()}.
	 * @param payload the payload
	 * @return this builder
	 */
	public BatchBuilder add(Object payload) {
		this.definition.add(payload);
		return this;
	}

	/**
	 * Add sub-jobs, sent by {@link #open()} or {@link #submit()}; for very large batches,
	 * {@link #open()} the batch and feed it in chunks with {@link Batch#addAll(Collection)}.
	 * @param payloads the payloads
	 * @return this builder
	 */
	public BatchBuilder addAll(Collection<?> payloads) {
		payloads.forEach(this::add);
		return this;
	}

	/**
	 * Open the batch, add the sub-jobs given so far, and leave it open for more; it cannot finish
	 * before {@link Batch#seal()}.
	 * @return the batch
	 * @throws QueueBatchException if a batch of the given id exists
	 */
	public Batch open() {
		BatchDefinition d = this.definition;
		Batch batch = new Batch(this.batches, this.queue, this.batches.open(this.queue, d.id(), d.maxConcurrency(),
				d.priority(), d.completionQueue(), d.completionPayload(), d.maxAttempts(), d.headers()));
		if (!d.payloads().isEmpty()) {
			batch.addAll(d.payloads());
		}
		return batch;
	}

	/**
	 * Open the batch, add the sub-jobs and seal it.
	 * @return the batch
	 * @throws QueueBatchException if a batch of the given id exists
	 */
	public Batch submit() {
		Batch batch = open();
		batch.seal();
		return batch;
	}

}
