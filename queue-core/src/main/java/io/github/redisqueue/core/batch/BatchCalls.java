package io.github.redisqueue.core.batch;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.core.PayloadTooLargeException;
import io.github.redisqueue.core.QueueBatchException;
import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.script.InspectReplies;
import io.github.redisqueue.core.script.ScriptReplies;
import org.jspecify.annotations.Nullable;

import static io.github.redisqueue.core.script.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.script.ScriptArgs.encodeNumber;
import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;

/**
 * The arguments of the calls of {@code batch.lua} that open, feed, seal and read a batch, and the
 * decoding of their replies: shared by the blocking path ({@link QueueBatches}) and the reactive
 * one, so that both send the same values and refuse the same way.
 */
public final class BatchCalls {

	private BatchCalls() {
	}

	/** The arguments of one operation on one batch: the operation, the batch id, then {@code more}. */
	public static List<byte[]> args(String op, String batchId, byte[]... more) {
		List<byte[]> args = new ArrayList<>(2 + more.length);
		args.add(encodeAscii(op));
		args.add(encodeUtf8(batchId));
		Collections.addAll(args, more);
		return args;
	}

	/**
	 * The arguments of 'open' after the operation and the id ('' for one the script generates); the
	 * completion payload serialized and checked against the size limit.
	 */
	public static byte[][] openArgs(QueueContext context, int maxConcurrency, int priority,
			@Nullable String completionQueue, @Nullable Object completionPayload, @Nullable Integer maxAttempts,
			Map<String, String> headerValues) {
		byte[] completion = (completionPayload != null) ? context.serializer().serialize(completionPayload) : new byte[0];
		if (completion.length > context.settings().maxPayloadBytes()) {
			throw new PayloadTooLargeException(String.valueOf(completionQueue), completion.length,
					context.settings().maxPayloadBytes());
		}
		return new byte[][] { encodeNumber(maxConcurrency), encodeNumber(priority),
				encodeUtf8((completionQueue != null) ? completionQueue : ""), completion,
				encodeNumber(context.settings().batchRetention().toMillis()),
				encodeNumber((maxAttempts != null) ? maxAttempts : context.settings().defaultMaxAttempts()),
				context.serializer().serializeHeaders(headerValues) };
	}

	/** The id of the batch 'open' created; refuses an id that is taken. */
	public static String opened(String queue, List<?> reply) {
		String batchId = ScriptReplies.text(reply.get(0));
		if (ScriptReplies.asLong(reply.get(1)) == 0) {
			throw new QueueBatchException("Queue '" + queue + "' has a batch '" + batchId + "' already; batch ids are "
					+ "unique per queue for as long as a batch is kept (its retention after it finished)");
		}
		return batchId;
	}

	/**
	 * The arguments of the 'add' calls of serialized sub-jobs after the operation and the batch id:
	 * per call the count, then the payloads, at most {@link QueueBatches#CHUNK} and the enqueue chunk.
	 */
	public static List<List<byte[]>> addChunks(QueueContext context, List<byte[]> serialized) {
		List<List<byte[]>> chunks = new ArrayList<>();
		int chunk = Math.min(QueueBatches.CHUNK, context.settings().enqueueChunk());
		for (int from = 0; from < serialized.size(); from += chunk) {
			List<byte[]> part = serialized.subList(from, Math.min(from + chunk, serialized.size()));
			List<byte[]> args = new ArrayList<>(part.size() + 1);
			args.add(encodeNumber(part.size()));
			args.addAll(part);
			chunks.add(args);
		}
		return chunks;
	}

	/** The ids of the sub-jobs one 'add' call created; refuses a batch that is missing or not open. */
	public static List<String> added(String queue, String batchId, List<?> reply) {
		if (ScriptReplies.asLong(reply.get(0)) != 1) {
			String state = ScriptReplies.text(reply.get(1));
			if ("missing".equals(state)) {
				throw QueueBatchException.missing(queue, batchId);
			}
			throw new QueueBatchException("Batch '" + batchId + "' of queue '" + queue + "' is " + state
					+ ": sub-jobs can be added to an open batch only");
		}
		List<String> ids = new ArrayList<>(reply.size() - 2);
		for (int i = 2; i < reply.size(); i++) {
			ids.add(ScriptReplies.text(reply.get(i)));
		}
		return ids;
	}

	/** The state of the batch 'seal' sealed; refuses a batch that is missing or not open. */
	public static String sealed(String queue, String batchId, List<?> reply) {
		String state = ScriptReplies.text(reply.get(1));
		if (ScriptReplies.asLong(reply.get(0)) != 1) {
			if ("missing".equals(state)) {
				throw QueueBatchException.missing(queue, batchId);
			}
			throw new QueueBatchException(
					"Batch '" + batchId + "' of queue '" + queue + "' is " + state + ": only an open batch can be sealed");
		}
		return state;
	}

	/** The reply of 'status': the batch's status, none when there is no such batch. */
	public static Optional<BatchStatus> status(String queue, String batchId, List<?> reply) {
		return reply.isEmpty() ? Optional.empty() : Optional.of(InspectReplies.batchStatus(queue, batchId, reply, 0));
	}

}
