package io.github.redisqueue.core.enqueue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.core.EnqueueResult;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobOutcome;
import io.github.redisqueue.core.PayloadTooLargeException;
import io.github.redisqueue.core.QueueOperations;
import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.partition.JobRouting;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.ScriptArgs;
import io.github.redisqueue.core.script.ScriptReplies;
import io.github.redisqueue.support.micrometer.QueueEnqueueContext;
import io.github.redisqueue.support.micrometer.QueueEnqueueObservationConvention;
import io.github.redisqueue.support.micrometer.QueueObservation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import static io.github.redisqueue.core.script.ScriptArgs.encodeNumber;
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

	public JobEnqueuer(QueueContext context) {
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

	/**
	 * Everything an enqueue checks before it sends anything: the queue name, one payload per
	 * idempotency key, every payload serialized and within the size limit.
	 * @return the serialized payloads, for {@link #send}
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
		QueueKeys[] parts = this.context.partitions(queue);
		String routing = JobRouting.routingKey(queue, parts.length, options);
		if (parts.length == 1 || routing != null || serialized.size() == 1) {
			return enqueueOn(queue, this.context.partitioning().keysForNew(queue, routing), serialized, options, headerValues);
		}
		int first = this.context.partitioning().nextTurn(queue, parts.length);
		int runs = Math.min(parts.length, serialized.size());
		List<EnqueueResult> results = new ArrayList<>(serialized.size());
		for (int run = 0; run < runs; run++) {
			int from = (int) ((long) serialized.size() * run / runs);
			int to = (int) ((long) serialized.size() * (run + 1) / runs);
			results.addAll(enqueueOn(queue, parts[(first + run) % parts.length], serialized.subList(from, to), options,
					headerValues));
		}
		return results;
	}

	private List<EnqueueResult> enqueueOn(String queue, QueueKeys k, List<byte[]> serialized, JobOptions options,
			Map<String, String> headerValues) {
		this.context.register(k);
		byte[][] shared = ScriptArgs.jobOptionArgs(options, this.context.settings().defaultMaxAttempts(),
				this.context.settings().groupConcurrency(queue));
		byte[] headers = this.context.serializer().serializeHeaders(headerValues);
		List<byte[]> extraKeys = (options.getIdempotencyKey() != null)
				? List.of(encodeUtf8(k.idempotencyKey(options.getIdempotencyKey()))) : List.of();
		List<EnqueueResult> results = new ArrayList<>(serialized.size());
		int chunk = this.context.settings().enqueueChunk();
		for (int from = 0; from < serialized.size(); from += chunk) {
			List<byte[]> part = serialized.subList(from, Math.min(from + chunk, serialized.size()));
			// the headers and options once, then the payloads
			List<byte[]> args = new ArrayList<>(2 + shared.length + part.size());
			args.add(encodeNumber(part.size()));
			args.add(headers);
			Collections.addAll(args, shared);
			args.addAll(part);
			results.addAll(ScriptReplies.enqueueResults(runEnqueue(queue, k, extraKeys, args)));
		}
		long duplicates = results.stream().filter(EnqueueResult::duplicate).count();
		this.context.record(queue, JobOutcome.ENQUEUED, results.size() - duplicates);
		this.context.record(queue, JobOutcome.DUPLICATE, duplicates);
		return results;
	}

	private List<Object> runEnqueue(String queue, QueueKeys k, List<byte[]> extraKeys, List<byte[]> args) {
		return this.context.durableEnqueue().run(this.context.executor(), queue, k, extraKeys, args,
				this.context.enqueueTimeout());
	}

}
