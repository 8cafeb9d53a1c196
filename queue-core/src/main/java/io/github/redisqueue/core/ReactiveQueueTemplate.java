package io.github.redisqueue.core;

import java.util.Collection;
import java.util.List;

import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.reactive.ReactiveBatches;
import io.github.redisqueue.core.reactive.ReactiveEnqueuer;
import io.github.redisqueue.core.reactive.ReactiveRegistration;
import io.github.redisqueue.core.reactive.ReactiveScriptRunner;
import io.github.redisqueue.core.script.InspectReplies;
import io.github.redisqueue.core.script.QueueKeys;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

import static io.github.redisqueue.core.script.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;
import static io.github.redisqueue.core.script.ScriptReplies.EMPTY;

/**
 * The Redis implementation of {@link ReactiveQueueOperations}, on a {@link QueueTemplate} whose
 * settings, serializer, scripts, partitions, registry of queue names and job events it shares:
 * the checks, the script arguments and the decoding of the replies are the template's own; only
 * the calls to Redis go through Spring Data Redis's reactive API, on the template's connection
 * factory (Lettuce's serves both) or on the reactive one given. Thread safe.
 *
 * <pre class="code">
 * ReactiveQueueTemplate queues = new ReactiveQueueTemplate(queueTemplate);
 * Mono&lt;EnqueueResult&gt; sent = queues.enqueue("emails", new Email("ada@example.com", "Welcome"));
 * </pre>
 *
 * <p>Enqueue calls are not observed as {@code queue.enqueue} observations. Two rare steps run the
 * blocking template's code on Reactor's bounded elastic scheduler: the one-time migration of a
 * key prefix of the old layout, and enqueues under a {@link DurableEnqueue} (whose {@code WAIT}
 * must follow the script on the same connection).
 *
 * @since 0.1.0
 */
public class ReactiveQueueTemplate implements ReactiveQueueOperations {

	private final QueueContext context;

	private final ReactiveScriptRunner runner;

	private final ReactiveRegistration registration;

	private final ReactiveEnqueuer enqueuer;

	private final ReactiveBatches batches;

	/**
	 * A reactive template on the template's connection factory, which must be reactive too (as
	 * Lettuce's is).
	 * @param template the blocking template
	 */
	public ReactiveQueueTemplate(QueueTemplate template) {
		this(template, reactive(template));
	}

	/**
	 * A reactive template on the given reactive connection factory, which must reach the same Redis
	 * as the template's.
	 * @param template the blocking template
	 * @param connectionFactory the reactive connection factory
	 */
	public ReactiveQueueTemplate(QueueTemplate template, ReactiveRedisConnectionFactory connectionFactory) {
		this.context = template.context();
		this.runner = new ReactiveScriptRunner(connectionFactory, this.context.executor().scripts());
		this.registration = new ReactiveRegistration(this.context.registry(), this.runner.redis());
		this.enqueuer = new ReactiveEnqueuer(this.context, template.enqueuer(), this.runner, this.registration);
		this.batches = new ReactiveBatches(this.context, template.enqueuer(), template.batches(), this.runner,
				this.registration);
	}

	private static ReactiveRedisConnectionFactory reactive(QueueTemplate template) {
		if (template.getConnectionFactory() instanceof ReactiveRedisConnectionFactory reactive) {
			return reactive;
		}
		throw new IllegalArgumentException("The connection factory of the template ("
				+ template.getConnectionFactory().getClass().getName() + ") is not a ReactiveRedisConnectionFactory: "
				+ "give one that reaches the same Redis");
	}

	@Override
	public Mono<EnqueueResult> enqueue(String queue, Object payload, JobOptions options) {
		return this.enqueuer.enqueueAll(queue, java.util.Collections.singletonList(payload), options).single();
	}

	@Override
	public Flux<EnqueueResult> enqueueAll(String queue, Collection<?> payloads, JobOptions options) {
		return this.enqueuer.enqueueAll(queue, payloads, options);
	}

	@Override
	public ReactiveBatchBuilder batch(String queue) {
		this.context.partitions(queue);
		return new ReactiveBatchBuilder(this.batches, queue);
	}

	@Override
	public Mono<BatchStatus> batchStatus(String queue, String batchId) {
		return this.batches.status(queue, batchId);
	}

	@Override
	public Mono<JobInfo> job(String queue, String id) {
		return Mono.defer(() -> run(this.context.executor().scripts().inspect(),
				this.context.partitioning().keysForJob(queue, id), List.of(encodeAscii("job"), encodeUtf8(id)))
			.flatMap((reply) -> Mono
				.justOrEmpty(InspectReplies.flatJob(queue, id, reply, (raw) -> this.context.headers(queue, raw)))));
	}

	@Override
	public Mono<QueueCounts> counts(String queue) {
		return Mono.defer(() -> Flux.fromArray(this.context.partitions(queue))
			.flatMapSequential((k) -> run(this.context.executor().scripts().inspect(), k, List.of(EMPTY)))
			.map((reply) -> InspectReplies.counts(queue, reply))
			.reduce(QueueCounts::plus));
	}

	private Mono<List<Object>> run(RedisScript<?> script, QueueKeys k, List<byte[]> args) {
		return this.registration.open().then(this.runner.run(script, k, List.of(), args));
	}

}
