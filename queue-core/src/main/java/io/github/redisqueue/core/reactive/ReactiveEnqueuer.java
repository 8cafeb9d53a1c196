package io.github.redisqueue.core.reactive;

import java.util.Collection;
import java.util.List;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.core.EnqueueResult;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.enqueue.JobEnqueuer;
import io.github.redisqueue.core.enqueue.JobEnqueuer.EnqueueCall;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueScriptExecutor;
import io.github.redisqueue.core.script.ScriptReplies;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The reactive enqueue path: the blocking {@link JobEnqueuer}'s checks, serialization, size limit
 * and plan of script calls (partition routing, chunks, idempotency key), each call sent through
 * the {@link ReactiveScriptRunner} in order, its reply decoded and its jobs reported as the
 * blocking path does. An enqueue that must wait for replicas (a durable enqueue, whose
 * {@code WAIT} must follow the script on the same connection) runs the blocking path on Reactor's
 * bounded elastic scheduler.
 */
public final class ReactiveEnqueuer {

	private final QueueContext context;

	private final JobEnqueuer enqueuer;

	private final ReactiveScriptRunner runner;

	private final ReactiveRegistration registration;

	public ReactiveEnqueuer(QueueContext context, JobEnqueuer enqueuer, ReactiveScriptRunner runner,
			ReactiveRegistration registration) {
		this.context = context;
		this.enqueuer = enqueuer;
		this.runner = runner;
		this.registration = registration;
	}

	/** See {@link io.github.redisqueue.core.ReactiveQueueOperations#enqueueAll}. */
	public Flux<EnqueueResult> enqueueAll(String queue, Collection<?> payloads, JobOptions options) {
		return Flux.defer(() -> {
			List<byte[]> serialized = this.enqueuer.prepare(queue, payloads, options);
			if (serialized.isEmpty()) {
				return Flux.empty();
			}
			if (this.context.durableEnqueue().replicas() > 0) {
				return Mono
					.fromCallable(() -> this.enqueuer.enqueueSerialized(queue, serialized, options, options.getHeaders()))
					.subscribeOn(Schedulers.boundedElastic())
					.flatMapIterable((results) -> results);
			}
			List<EnqueueCall> calls = this.enqueuer.plan(queue, serialized, options, options.getHeaders());
			return Flux.fromIterable(calls)
				.concatMap((call) -> this.registration.register(call.keys())
					.then(this.registration.open())
					.then(send(queue, call))
					.flatMapIterable((reply) -> this.enqueuer.recorded(queue, ScriptReplies.enqueueResults(reply))));
		});
	}

	private Mono<List<Object>> send(String queue, EnqueueCall call) {
		QueueKeys k = call.keys();
		return this.runner.run(this.runner.scripts().enqueue(), k, call.extraKeys(), call.args())
			.timeout(this.context.enqueueTimeout(), Mono.error(
					() -> new QueueException(QueueScriptExecutor.timeoutMessage(this.context.enqueueTimeout()))))
			.onErrorMap(RuntimeException.class, (ex) -> JobEnqueuer.failure(queue, ex));
	}

}
