package io.github.redisqueue.core.reactive;

import java.util.List;
import java.util.Map;

import io.github.redisqueue.core.BatchState;
import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.core.JobOutcome;
import io.github.redisqueue.core.QueueBatchException;
import io.github.redisqueue.core.batch.BatchCalls;
import io.github.redisqueue.core.batch.QueueBatches;
import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.enqueue.JobEnqueuer;
import io.github.redisqueue.core.script.QueueKeys;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The reactive batch calls: open, add and seal a batch, and read its status, with the arguments
 * and reply decoding of the blocking path ({@link BatchCalls}). When sealing finds the batch
 * finished already (every sub-job ended, or none), its completion job is handed off by the
 * blocking {@link QueueBatches#forward} on Reactor's bounded elastic scheduler, as the reaper
 * would on its next pass.
 */
public final class ReactiveBatches {

	private final QueueContext context;

	private final JobEnqueuer enqueuer;

	private final QueueBatches batches;

	private final ReactiveScriptRunner runner;

	private final ReactiveRegistration registration;

	public ReactiveBatches(QueueContext context, JobEnqueuer enqueuer, QueueBatches batches, ReactiveScriptRunner runner,
			ReactiveRegistration registration) {
		this.context = context;
		this.enqueuer = enqueuer;
		this.batches = batches;
		this.runner = runner;
		this.registration = registration;
	}

	/**
	 * Opens a batch, adds its sub-jobs and seals it. Every value is checked and every payload
	 * serialized before anything is sent.
	 * @return the status after sealing
	 */
	public Mono<BatchStatus> submit(String queue, @Nullable String id, int maxConcurrency, int priority,
			@Nullable String completionQueue, @Nullable Object completionPayload, @Nullable Integer maxAttempts,
			Map<String, String> headers, List<Object> payloads) {
		return Mono.defer(() -> {
			QueueKeys k = (id != null) ? this.context.keysFor(queue, id)
					: this.context.partitioning().keysForNew(queue, null);
			byte[][] openArgs = BatchCalls.openArgs(this.context, maxConcurrency, priority, completionQueue,
					completionPayload, maxAttempts, headers);
			List<byte[]> serialized = this.enqueuer.serializePayloads(queue, payloads);
			if (this.context.durableEnqueue().replicas() > 0) {
				// the adds wait for replicas with WAIT on the script's own connection: the blocking path
				return Mono.fromCallable(() -> {
					String batchId = this.batches.open(queue, id, maxConcurrency, priority, completionQueue,
							completionPayload, maxAttempts, headers);
					this.batches.add(queue, batchId, payloads);
					return this.batches.seal(queue, batchId);
				}).subscribeOn(Schedulers.boundedElastic());
			}
			return this.registration.register(k)
				.then(this.registration.open())
				.then(run(k, BatchCalls.args("open", (id != null) ? id : "", openArgs)))
				.map((reply) -> BatchCalls.opened(queue, reply))
				.flatMap((batchId) -> add(queue, batchId, serialized).then(seal(queue, batchId)));
		});
	}

	private Mono<Void> add(String queue, String batchId, List<byte[]> serialized) {
		QueueKeys k = this.context.keysFor(queue, batchId);
		return Flux.fromIterable(BatchCalls.addChunks(this.context, serialized))
			.concatMap((args) -> run(k, BatchCalls.args("add", batchId, args.toArray(new byte[0][])))
				.map((reply) -> BatchCalls.added(queue, batchId, reply)))
			.doOnNext((ids) -> this.context.record(queue, JobOutcome.ENQUEUED, ids.size()))
			.then();
	}

	private Mono<BatchStatus> seal(String queue, String batchId) {
		QueueKeys k = this.context.keysFor(queue, batchId);
		return run(k, BatchCalls.args("seal", batchId))
			.map((reply) -> BatchCalls.sealed(queue, batchId, reply))
			.flatMap((state) -> BatchState.of(state).isFinished() ? forward(queue, k) : Mono.<Void>empty())
			.then(status(queue, batchId))
			.switchIfEmpty(Mono.error(() -> QueueBatchException.missing(queue, batchId)));
	}

	private Mono<Void> forward(String queue, QueueKeys k) {
		return Mono.fromRunnable(() -> this.batches.forward(queue, k)).subscribeOn(Schedulers.boundedElastic()).then();
	}

	/** The status of a batch; empty when there is no such batch. */
	public Mono<BatchStatus> status(String queue, String batchId) {
		return Mono.defer(() -> this.registration.open()
			.then(run(this.context.keysFor(queue, batchId), BatchCalls.args("status", batchId)))
			.flatMap((reply) -> Mono.justOrEmpty(BatchCalls.status(queue, batchId, reply))));
	}

	private Mono<List<Object>> run(QueueKeys k, List<byte[]> args) {
		return this.runner.run(this.runner.scripts().batch(), k, List.of(), args);
	}

}
