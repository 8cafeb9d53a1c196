package io.github.redisqueue.core;

import java.util.Collection;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The producer side of {@link QueueOperations} for reactive applications: enqueues, batches and
 * reads of a job's, a batch's or a queue's state that return {@link Mono} and {@link Flux}. Each
 * call runs the same scripts with the same arguments as the blocking template, so it keeps the same
 * guarantees: payloads serialized and checked against the size limit before anything is sent,
 * partition routing, uniqueness, idempotency keys and groups. Nothing happens until a subscriber
 * subscribes; every refusal (an invalid queue name or option, a payload over the limit, a taken
 * batch id, a timeout) arrives as an error signal with the message the blocking call throws.
 *
 * <pre class="code">
 * Mono&lt;EnqueueResult&gt; sent = reactiveQueues.enqueue("emails", email, JobOptions.builder().priority(10).build());
 * </pre>
 *
 * @since 0.1.0
 * @see ReactiveQueueTemplate
 */
public interface ReactiveQueueOperations {

	/**
	 * Enqueue one job with default options.
	 * @param queue the queue name
	 * @param payload the payload
	 * @return the job id, and whether it was refused as a duplicate
	 */
	default Mono<EnqueueResult> enqueue(String queue, Object payload) {
		return enqueue(queue, payload, JobOptions.defaults());
	}

	/**
	 * Enqueue one job; see {@link QueueOperations#enqueue(String, Object, JobOptions)}.
	 * @param queue the queue name
	 * @param payload the payload
	 * @param options delay, priority, uniqueness, idempotency, expiry, attempts, headers, routing
	 * @return the job id, and whether it was refused as a duplicate
	 */
	Mono<EnqueueResult> enqueue(String queue, Object payload, JobOptions options);

	/**
	 * Enqueue many jobs with the same options, one round trip per chunk; every payload is checked
	 * and serialized before anything is sent, so one bad payload sends none. See
	 * {@link QueueOperations#enqueueAll}.
	 * @param queue the queue name
	 * @param payloads the payloads
	 * @param options options shared by every job
	 * @return one result per payload, in order
	 */
	Flux<EnqueueResult> enqueueAll(String queue, Collection<?> payloads, JobOptions options);

	/**
	 * Start a batch of sub-jobs of a queue; {@link ReactiveBatchBuilder#submit()} opens, fills and
	 * seals it. See {@link QueueOperations#batch(String)}.
	 * @param queue the queue of the sub-jobs
	 * @return the builder
	 */
	ReactiveBatchBuilder batch(String queue);

	/**
	 * The progress of a batch.
	 * @param queue the queue name
	 * @param batchId the batch id
	 * @return its status; empty when there is no such batch (never opened, or its retention ran out)
	 */
	Mono<BatchStatus> batchStatus(String queue, String batchId);

	/**
	 * One job, as {@link QueueAdminOperations#job(String, String)} reads it.
	 * @param queue the queue name
	 * @param id the job id
	 * @return the job; empty when there is no such job (never enqueued, or purged)
	 */
	Mono<JobInfo> job(String queue, String id);

	/**
	 * The counts of a queue, summed over its partitions, as {@link QueueAdminOperations#counts(String)}
	 * reads them.
	 * @param queue the queue name
	 * @return the counts
	 */
	Mono<QueueCounts> counts(String queue);

}
