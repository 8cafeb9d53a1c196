package io.github.redisqueue.core.batch;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.redisqueue.core.Batch;
import io.github.redisqueue.core.BatchBuilder;
import io.github.redisqueue.core.BatchState;
import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.core.DurableEnqueue;
import io.github.redisqueue.core.JobOutcome;
import io.github.redisqueue.core.JobResult;
import io.github.redisqueue.core.QueueBatchException;
import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.enqueue.JobEnqueuer;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.ScriptReplies;
import org.jspecify.annotations.Nullable;

import static io.github.redisqueue.core.script.ScriptArgs.encodeNumber;
import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;

/**
 * The batches of a template: every call of {@code batch.lua} (open, feed, seal, cancel, read), and
 * the two ends of a finished batch through {@link BatchCompletions}. {@link Batch},
 * {@link BatchBuilder} and the template's batch operations go through it.
 */
public final class QueueBatches {

	/** Most sub-jobs one script call adds, cancels, or returns results of. */
	public static final int CHUNK = 1000;

	private final QueueContext context;

	private final JobEnqueuer enqueuer;

	private final BatchCompletions completions;

	public QueueBatches(QueueContext context, JobEnqueuer enqueuer) {
		this.context = context;
		this.enqueuer = enqueuer;
		this.completions = new BatchCompletions(context, enqueuer, this);
	}

	public Optional<BatchStatus> status(String queue, String batchId) {
		return BatchCalls.status(queue, batchId, run(queue, "status", batchId));
	}

	public BatchStatus cancel(String queue, String batchId) {
		List<Object> reply;
		do {
			reply = run(queue, "cancel", batchId, encodeNumber(CHUNK));
			if (ScriptReplies.asLong(reply.get(0)) < 0) {
				throw QueueBatchException.missing(queue, batchId);
			}
		}
		while (ScriptReplies.asLong(reply.get(1)) > 0);
		this.completions.forward(queue, this.context.keysFor(queue, batchId));
		return status(queue, batchId).orElseThrow(() -> QueueBatchException.missing(queue, batchId));
	}

	public <T> List<JobResult<T>> results(String queue, String batchId, long offset, int count, Class<T> type) {
		if (offset < 0 || count < 1 || count > CHUNK) {
			throw new IllegalArgumentException("Result page offset " + offset + ", count " + count
					+ " is out of range: the offset must be 0 or more and the count from 1 to " + CHUNK);
		}
		List<Object> reply = run(queue, "jobs", batchId, encodeNumber(offset), encodeNumber(count));
		if (reply.isEmpty()) {
			return List.of();
		}
		// each result is a key of its own (it expires by itself), all in the queue's slot
		QueueKeys k = this.context.keysFor(queue, batchId);
		List<String> ids = reply.stream().map(ScriptReplies::text).toList();
		List<byte[]> raw = this.context.executor().redis().opsForValue()
			.multiGet(ids.stream().map((id) -> encodeUtf8(k.resultKey(id))).toList());
		List<JobResult<T>> results = new ArrayList<>(ids.size());
		for (int i = 0; i < ids.size(); i++) {
			byte[] value = (raw != null) ? raw.get(i) : null;
			results.add(new JobResult<>(ids.get(i),
					(value != null && value.length > 0) ? this.context.serializer().deserialize(value, type) : null));
		}
		return results;
	}

	/** Opens a batch; returns its id. */
	public String open(String queue, @Nullable String id, int maxConcurrency, int priority,
			@Nullable String completionQueue, @Nullable Object completionPayload, @Nullable Integer maxAttempts,
			Map<String, String> headerValues) {
		QueueKeys k = (id != null) ? this.context.keysFor(queue, id) : this.context.partitioning().keysForNew(queue, null);
		this.context.register(k);
		byte[][] args = BatchCalls.openArgs(this.context, maxConcurrency, priority, completionQueue, completionPayload,
				maxAttempts, headerValues);
		return BatchCalls.opened(queue, run(k, "open", (id != null) ? id : "", args));
	}

	public List<String> add(String queue, String batchId, Collection<?> payloads) {
		List<byte[]> serialized = this.enqueuer.serializePayloads(queue, payloads);
		List<String> ids = new ArrayList<>(serialized.size());
		for (List<byte[]> args : BatchCalls.addChunks(this.context, serialized)) {
			ids.addAll(BatchCalls.added(queue, batchId, add(queue, batchId, args)));
		}
		this.context.record(queue, JobOutcome.ENQUEUED, ids.size());
		return ids;
	}

	public BatchStatus seal(String queue, String batchId) {
		String state = BatchCalls.sealed(queue, batchId, run(queue, "seal", batchId));
		if (BatchState.of(state).isFinished()) {
			this.completions.forward(queue, this.context.keysFor(queue, batchId));
		}
		return status(queue, batchId).orElseThrow(() -> QueueBatchException.missing(queue, batchId));
	}

	/** One call of 'add', waiting for replicas under a durable enqueue. */
	private List<Object> add(String queue, String batchId, List<byte[]> more) {
		DurableEnqueue durable = this.context.durableEnqueue();
		if (durable.replicas() == 0) {
			return run(queue, "add", batchId, more.toArray(new byte[0][]));
		}
		List<byte[]> args = BatchCalls.args("add", batchId, more.toArray(new byte[0][]));
		return durable.runBatchAdd(this.context.executor(), queue, batchId, this.context.keysFor(queue, batchId), args,
				this.context.enqueueTimeout());
	}

	/** Runs an operation on one batch, in the partition that holds it. */
	public List<Object> run(String queue, String op, String batchId, byte[]... more) {
		return run(this.context.keysFor(queue, batchId), op, batchId, more);
	}

	/** Runs an operation of the batch script in one partition of a queue. */
	public List<Object> run(QueueKeys k, String op, String batchId, byte[]... more) {
		return this.context.executor().run(this.context.executor().scripts().batch(), k, BatchCalls.args(op, batchId, more));
	}

	public CompletableFuture<BatchStatus> watch(String queue, String batchId) {
		this.context.partitions(queue);
		return this.completions.watch(queue, batchId);
	}

	/** Hand off the completion jobs of the finished batches of every partition of a queue. */
	public int forward(String queue) {
		int handed = 0;
		for (QueueKeys k : this.context.partitions(queue)) {
			handed += this.completions.forward(queue, k);
		}
		return handed;
	}

	/** Hand off the completion jobs of one partition's finished batches; see {@link BatchCompletions#forward}. */
	public int forward(String queue, QueueKeys k) {
		return this.completions.forward(queue, k);
	}

	public void stop() {
		this.completions.stop();
	}

}
