package io.github.redisqueue.core.enqueue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.core.EnqueueResult;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobOutcome;
import io.github.redisqueue.core.PayloadTooLargeException;
import io.github.redisqueue.core.QueueOperations;
import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.partition.JobRouting;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueScriptExecutor;
import io.github.redisqueue.core.script.ScriptArgs;
import io.github.redisqueue.core.script.ScriptReplies;
import io.github.redisqueue.support.micrometer.QueueEnqueueContext;
import io.github.redisqueue.support.micrometer.QueueEnqueueObservationConvention;
import io.github.redisqueue.support.micrometer.QueueObservation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;

/**
 * The enqueue path of a template: serialization and the size limit, the observation of each
 * call, idempotent and durable enqueues, bulk enqueues sent in chunks, and the spread of a
 * partitioned queue's jobs over its partitions (or to the partition of their routing key).
 */
public final class JobEnqueuer {

	private final QueueContext context;

	private volatile ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private volatile @Nullable QueueEnqueueObservationConvention enqueueConvention;

	private final EnqueueCoalescer coalescer;

	public JobEnqueuer(QueueContext context) {
		this.coalescer = new EnqueueCoalescer(context.settings().enqueueChunk());
		this.context = context;
	}

	public ObservationRegistry observationRegistry() {
		return this.observationRegistry;
	}

	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
	}

	public void setEnqueueConvention(@Nullable QueueEnqueueObservationConvention convention) {
		this.enqueueConvention = convention;
	}

	/** See {@link QueueOperations#enqueueAll}. */
	public List<EnqueueResult> enqueueAll(String queue, Collection<?> payloads, JobOptions options) {
		List<byte[]> serialized = prepare(queue, payloads, options);
		return serialized.isEmpty() ? List.of() : send(queue, serialized, options);
	}

	/** Enqueue payloads that {@link #prepare} returned (at least one), observed as one call. */
	public List<EnqueueResult> send(String queue, List<byte[]> serialized, JobOptions options) {
		if (this.observationRegistry.isNoop()) {
			return enqueueSerialized(queue, serialized, options, options.getHeaders());
		}
		Observation observation = QueueObservation.ENQUEUE.observation(this.enqueueConvention,
				QueueEnqueueObservationConvention.DEFAULT,
				() -> new QueueEnqueueContext(queue, serialized.size(), options.getHeaders()), this.observationRegistry);
		observation.start();
		try (Observation.Scope scope = observation.openScope()) {
			Map<String, String> headers = (observation.getContext() instanceof QueueEnqueueContext enqueueContext)
					? enqueueContext.getHeaders() : options.getHeaders();
			return enqueueSerialized(queue, serialized, options, headers);
		}
		catch (RuntimeException ex) {
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	/**
	 * The checks of an enqueue call before anything is sent, shared by the blocking and the reactive
	 * producer: the queue name, an idempotency key on one payload only, each payload serialized and
	 * within the size limit.
	 * @return the serialized payloads; none when there are no payloads
	 */
	public List<byte[]> prepare(String queue, Collection<?> payloads, JobOptions options) {
		this.context.partitions(queue);
		if (payloads.isEmpty()) {
			return List.of();
		}
		if (options.getIdempotencyKey() != null && payloads.size() > 1) {
			throw new IllegalArgumentException("An idempotency key names one job: it cannot be shared by the "
					+ payloads.size() + " payloads of one enqueueAll call to queue '" + queue + "'");
		}
		return serializePayloads(queue, payloads);
	}

	/** Every payload serialized, all checked against the size limit before anything is sent. */
	public List<byte[]> serializePayloads(String queue, Collection<?> payloads) {
		List<byte[]> serialized = new ArrayList<>(payloads.size());
		for (Object payload : payloads) {
			if (payload == null) {
				throw new IllegalArgumentException("Payload for queue '" + queue + "' must not be null");
			}
			byte[] bytes = this.context.serializer().serialize(payload);
			if (bytes.length > this.context.settings().maxPayloadBytes()) {
				throw new PayloadTooLargeException(queue, bytes.length, this.context.settings().maxPayloadBytes());
			}
			serialized.add(bytes);
		}
		return serialized;
	}

	/**
	 * Enqueue serialized payloads: to the queue, or for a partitioned queue to the partition of the
	 * options' routing key, or else spread over the partitions in runs of equal length, starting
	 * with the partition whose turn it is.
	 */
	public List<EnqueueResult> enqueueSerialized(String queue, List<byte[]> serialized, JobOptions options,
			Map<String, String> headerValues) {
		byte[] headers = this.context.serializer().serializeHeaders(headerValues);
		if (serialized.size() == 1 && coalescable(queue, options)) {
			// concurrent single enqueues with the same options share one call (see EnqueueCoalescer)
			return List.of(this.coalescer.enqueue(EnqueueCoalescer.Key.of(queue, options, headers), serialized.get(0),
					(jobs) -> enqueueNow(queue, jobs, options, headers)));
		}
		return enqueueNow(queue, serialized, options, headers);
	}

	/**
	 * Whether single enqueues with these options may share a call: on a queue of one partition,
	 * without a uniqueness or idempotency key (each names one job).
	 */
	private boolean coalescable(String queue, JobOptions options) {
		return options.getUniqueKey() == null && options.getIdempotencyKey() == null
				&& this.context.partitions(queue).length == 1;
	}

	private List<EnqueueResult> enqueueNow(String queue, List<byte[]> serialized, JobOptions options, byte[] headers) {
		List<EnqueueResult> results = new ArrayList<>(serialized.size());
		for (EnqueueCall call : plan(queue, serialized, options, headers)) {
			this.context.register(call.keys());
			results.addAll(recorded(queue, ScriptReplies.enqueueResults(runEnqueue(queue, call))));
		}
		return results;
	}

	/**
	 * The calls of {@code enqueue.lua} that enqueue serialized payloads, in order (see
	 * {@link #enqueueSerialized}): per partition the payloads go to, one call per chunk of at most
	 * the enqueue chunk, each with the options and headers once. Checks the options against the
	 * queue's partitioning; sends nothing.
	 */
	public List<EnqueueCall> plan(String queue, List<byte[]> serialized, JobOptions options,
			Map<String, String> headerValues) {
		return plan(queue, serialized, options, this.context.serializer().serializeHeaders(headerValues));
	}

	private List<EnqueueCall> plan(String queue, List<byte[]> serialized, JobOptions options, byte[] headers) {
		QueueKeys[] parts = this.context.partitions(queue);
		String routing = JobRouting.routingKey(queue, parts.length, options);
		List<EnqueueCall> calls = new ArrayList<>();
		if (parts.length == 1 || routing != null || serialized.size() == 1) {
			plan(queue, this.context.partitioning().keysForNew(queue, routing), serialized, options, headers, calls);
			return calls;
		}
		int first = this.context.partitioning().nextTurn(queue, parts.length);
		int runs = Math.min(parts.length, serialized.size());
		for (int run = 0; run < runs; run++) {
			int from = (int) ((long) serialized.size() * run / runs);
			int to = (int) ((long) serialized.size() * (run + 1) / runs);
			plan(queue, parts[(first + run) % parts.length], serialized.subList(from, to), options, headers, calls);
		}
		return calls;
	}

	private void plan(String queue, QueueKeys k, List<byte[]> serialized, JobOptions options, byte[] headers,
			List<EnqueueCall> calls) {
		byte[][] shared = ScriptArgs.jobOptionArgs(options, this.context.settings().defaultMaxAttempts(),
				this.context.settings().groupConcurrency(queue));
		List<byte[]> extraKeys = (options.getIdempotencyKey() != null)
				? List.of(encodeUtf8(k.idempotencyKey(options.getIdempotencyKey()))) : List.of();
		int chunk = this.context.settings().enqueueChunk();
		for (int from = 0; from < serialized.size(); from += chunk) {
			// the headers and options once, then the payloads
			calls.add(new EnqueueCall(k, extraKeys, ScriptArgs.enqueueArgs(headers, shared,
					serialized.subList(from, Math.min(from + chunk, serialized.size())))));
		}
	}

	/** Reports the enqueued and duplicate jobs of one call to the job events; returns the results. */
	public List<EnqueueResult> recorded(String queue, List<EnqueueResult> results) {
		long duplicates = results.stream().filter(EnqueueResult::duplicate).count();
		this.context.record(queue, JobOutcome.ENQUEUED, results.size() - duplicates);
		this.context.record(queue, JobOutcome.DUPLICATE, duplicates);
		return results;
	}

	private List<Object> runEnqueue(String queue, EnqueueCall call) {
		return this.context.durableEnqueue().run(this.context.executor(), queue, call.keys(), call.extraKeys(),
				call.args(), this.context.enqueueTimeout());
	}

	/**
	 * What a failed call of {@code enqueue.lua} fails with: a queue whose sequence numbers ran out
	 * is a {@link QueueException} saying so; other failures are themselves.
	 */
	public static RuntimeException failure(String queue, RuntimeException ex) {
		if (QueueScriptExecutor.mentions(ex, "queue sequence exhausted")) {
			return new QueueException("Queue '" + queue + "' refused the enqueue before writing anything: it has "
					+ "used its 999,999,999,999 sequence numbers (drain it and move to a new queue name)", ex);
		}
		return ex;
	}

	/**
	 * One call of {@code enqueue.lua}.
	 * @param keys the keys of the partition it enqueues to
	 * @param extraKeys the keys after the partition's own (the idempotency key)
	 * @param args the arguments after the partition's channel and id form
	 */
	public record EnqueueCall(QueueKeys keys, List<byte[]> extraKeys, List<byte[]> args) {
	}

}
