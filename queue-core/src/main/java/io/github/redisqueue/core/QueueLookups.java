package io.github.redisqueue.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.redisqueue.core.batch.QueueBatches;
import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.script.InspectReplies;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueScriptExecutor;
import org.jspecify.annotations.Nullable;

import static io.github.redisqueue.core.script.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.script.ScriptArgs.encodeNumber;
import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;
import static io.github.redisqueue.core.script.ScriptReplies.asLong;
import static io.github.redisqueue.core.script.ScriptReplies.bytes;
import static io.github.redisqueue.core.script.ScriptReplies.text;

/**
 * The reads of {@link QueueAdmin} for operators that go beyond counts and pages: a job found by
 * its uniqueness or idempotency key, a job's history as its record holds it, the recently
 * finished batches, and where a queue stands against its rate limit. Each is one script call per
 * partition at most, read-only ({@code inspect.lua}, {@code batch.lua} 'list').
 */
final class QueueLookups {

	private static final byte[] FIND = encodeAscii("find");

	private static final byte[] RATE = encodeAscii("rate");

	private static final byte[] JOB = encodeAscii("job");

	private final QueueContext context;

	private final QueueScriptExecutor executor;

	private final QueueBatches batches;

	QueueLookups(QueueContext context, QueueBatches batches) {
		this.context = context;
		this.executor = context.executor();
		this.batches = batches;
	}

	Optional<String> byUniqueKey(String queue, String key) {
		checkKey(key, "uniqueness");
		QueueKeys k = this.context.partitioning().keysForNew(queue, key);
		List<Object> reply = this.executor.run(this.executor.scripts().inspect(), k,
				List.of(FIND, encodeAscii("unique"), encodeUtf8(key)));
		return found(reply);
	}

	Optional<String> byIdempotencyKey(String queue, String key) {
		checkKey(key, "idempotency");
		QueueKeys k = this.context.partitioning().keysForNew(queue, key);
		List<Object> reply = this.executor.runWithin(this.executor.scripts().inspect(), k,
				List.of(encodeUtf8(k.idempotencyKey(key))), List.of(FIND, encodeAscii("idem")),
				this.context.enqueueTimeout());
		return found(reply);
	}

	Optional<JobHistory> history(String queue, String id) {
		JobIds.validate(id);
		List<Object> reply = this.executor.run(this.executor.scripts().inspect(),
				this.context.partitioning().keysForJob(queue, id), List.of(JOB, encodeUtf8(id)));
		Optional<JobInfo> job = InspectReplies.flatJob(queue, id, reply, (raw) -> this.context.headers(queue, raw));
		if (job.isEmpty()) {
			return Optional.empty();
		}
		Map<String, String> fields = new HashMap<>();
		for (int at = 0; at + 1 < reply.size(); at += 2) {
			String name = text(reply.get(at));
			if (!"payload".equals(name) && !"headers".equals(name)) {
				fields.put(name, text(reply.get(at + 1)));
			}
		}
		long ready = number(fields.get("readyAt"));
		// a sub-job's batch (a member's group) moves from 'batch' ('group') to 'ofBatch' ('ofGroup') when it ends there
		String batch = blankToNull(fields.getOrDefault("batch", ""));
		String group = blankToNull(fields.getOrDefault("group", ""));
		return Optional.of(new JobHistory(job.get(),
				(int) Math.min(Integer.MAX_VALUE, number(fields.get("lost")) + number(fields.get("lostAhead"))),
				(ready > 0) ? Instant.ofEpochMilli(ready) : null, blankToNull(fields.get("uniqueKey")),
				(batch != null) ? batch : blankToNull(fields.get("ofBatch")),
				(group != null) ? group : blankToNull(fields.get("ofGroup"))));
	}

	List<BatchStatus> finishedBatches(String queue, int count) {
		List<BatchStatus> all = new ArrayList<>();
		for (QueueKeys k : this.context.partitions(queue)) {
			all.addAll(InspectReplies.batchList(queue, this.batches.run(k, "list", "", encodeNumber(0),
					encodeNumber(count), encodeAscii("finished"))));
		}
		all.sort(Comparator.comparing((BatchStatus b) -> (b.finishedAt() != null) ? b.finishedAt() : b.createdAt())
			.reversed());
		return (all.size() > count) ? List.copyOf(all.subList(0, count)) : all;
	}

	RateLimitStatus rateLimit(String queue) {
		RateLimit limit = this.context.settings().rateLimit(queue);
		long now = 0;
		int handedOut = 0;
		long next = Long.MAX_VALUE;
		long limited = 0;
		long held = 0;
		// a queue without a limit is asked about one permit: only its counters are used
		byte[] permits = encodeNumber((limit != null) ? limit.permits() : 1);
		byte[] windowMs = encodeNumber((limit != null) ? limit.window().toMillis() : 1);
		for (QueueKeys k : this.context.partitions(queue)) {
			List<Object> reply = this.executor.run(this.executor.scripts().inspect(), k, List.of(RATE, permits, windowMs));
			now = Math.max(now, asLong(reply.get(0)));
			limited += asLong(reply.get(3));
			held += asLong(reply.get(4));
			if (limit != null) {
				handedOut += (int) asLong(reply.get(1));
				long at = asLong(reply.get(2));
				if (at >= 0) {
					next = Math.min(next, at);
				}
			}
		}
		return new RateLimitStatus(queue, limit, Instant.ofEpochMilli(now), handedOut,
				(next != Long.MAX_VALUE) ? Instant.ofEpochMilli(next) : null, limited, held);
	}

	private static Optional<String> found(List<Object> reply) {
		String id = reply.isEmpty() ? "" : text(bytes(reply.get(0)));
		return id.isEmpty() ? Optional.empty() : Optional.of(id);
	}

	private static void checkKey(String key, String what) {
		if (key.isEmpty() || key.length() > JobOptions.MAX_UNIQUE_KEY_LENGTH) {
			throw new IllegalArgumentException("The " + what + " key must have from 1 to "
					+ JobOptions.MAX_UNIQUE_KEY_LENGTH + " characters");
		}
	}

	private static long number(@Nullable String value) {
		if (value == null || !value.matches("-?\\d{1,18}")) {
			return 0;
		}
		return Long.parseLong(value);
	}

	private static @Nullable String blankToNull(@Nullable String value) {
		return (value == null || value.isEmpty()) ? null : value;
	}

}
