package io.github.redisqueue.core;

import java.util.Collection;
import java.util.Objects;

import io.github.redisqueue.core.reactive.ReactiveBatches;
import reactor.core.publisher.Mono;

/**
 * Builds a batch for {@link ReactiveQueueOperations#batch(String)}: the same settings, checked the
 * same way, as {@link BatchBuilder}; {@link #submit()} opens the batch, adds the sub-jobs and seals
 * it when subscribed to.
 *
 * <pre class="code">
 * Mono&lt;BatchStatus&gt; submitted = reactiveQueues.batch("resize")
 *     .maxConcurrency(3)
 *     .onComplete("resize-done", request)
 *     .addAll(pieces)
 *     .submit();
 * </pre>
 *
 * @since 0.1.0
 */
public final class ReactiveBatchBuilder {

	private final ReactiveBatches batches;

	private final String queue;

	private final BatchDefinition definition = new BatchDefinition();

	ReactiveBatchBuilder(ReactiveBatches batches, String queue) {
		this.batches = batches;
		this.queue = queue;
	}

	/** See {@link BatchBuilder#priority(int)}. */
	public ReactiveBatchBuilder priority(int priority) {
		this.definition.priority(priority);
		return this;
	}

	/** See {@link BatchBuilder#maxConcurrency(int)}. */
	public ReactiveBatchBuilder maxConcurrency(int maxConcurrency) {
		this.definition.maxConcurrency(maxConcurrency);
		return this;
	}

	/** See {@link BatchBuilder#onComplete(String)}. */
	public ReactiveBatchBuilder onComplete(String queue) {
		this.definition.onComplete(queue, null);
		return this;
	}

	/** See {@link BatchBuilder#onComplete(String, Object)}. */
	public ReactiveBatchBuilder onComplete(String queue, Object payload) {
		this.definition.onComplete(queue, Objects.requireNonNull(payload, "payload"));
		return this;
	}

	/** See {@link BatchBuilder#id(String)}. */
	public ReactiveBatchBuilder id(String id) {
		this.definition.id(id);
		return this;
	}

	/** See {@link BatchBuilder#maxAttempts(int)}. */
	public ReactiveBatchBuilder maxAttempts(int maxAttempts) {
		this.definition.maxAttempts(maxAttempts);
		return this;
	}

	/** See {@link BatchBuilder#header(String, String)}. */
	public ReactiveBatchBuilder header(String name, String value) {
		this.definition.header(name, value);
		return this;
	}

	/** Add a sub-job, sent by {@link #submit()}. */
	public ReactiveBatchBuilder add(Object payload) {
		this.definition.add(payload);
		return this;
	}

	/** Add sub-jobs, sent by {@link #submit()}. */
	public ReactiveBatchBuilder addAll(Collection<?> payloads) {
		payloads.forEach(this::add);
		return this;
	}

	/**
	 * Open the batch, add the sub-jobs and seal it, when subscribed to; every payload is serialized
	 * and checked against the size limit before anything is sent.
	 * @return the status after sealing (its {@link BatchStatus#id() id} names the batch); a
	 * {@link QueueBatchException} if a batch of the given id exists
	 */
	public Mono<BatchStatus> submit() {
		BatchDefinition d = this.definition;
		return this.batches.submit(this.queue, d.id(), d.maxConcurrency(), d.priority(), d.completionQueue(),
				d.completionPayload(), d.maxAttempts(), d.headers(), d.payloads());
	}

}
