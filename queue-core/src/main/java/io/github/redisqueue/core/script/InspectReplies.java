package io.github.redisqueue.core.script;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import io.github.redisqueue.core.BatchState;
import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.core.DeadJob;
import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueCounts;
import io.github.redisqueue.core.WorkerInfo;
import org.jspecify.annotations.Nullable;

import static io.github.redisqueue.core.script.ScriptReplies.EMPTY;
import static io.github.redisqueue.core.script.ScriptReplies.asLong;
import static io.github.redisqueue.core.script.ScriptReplies.bytes;
import static io.github.redisqueue.core.script.ScriptReplies.instant;
import static io.github.redisqueue.core.script.ScriptReplies.text;

/**
 * The contract between the Lua scripts and Java for inspection and administration: one decoder
 * per reply of the inspect, jobs, dead, batch, workers and silent scripts, and the reading of job
 * and worker hashes. Each position constant names the part of the script's {@code Returns:}
 * header it reads (scripts under {@code io/github/redisqueue/scripts/}).
 */
public final class InspectReplies {

	private InspectReplies() {
	}

	/** {@code batch.lua} 'status': values per batch, from "state" to "waiting". */
	public static final int BATCH_STATUS_STRIDE = 12;

	/** {@code inspect.lua}: "Returns ready". */
	public static final int INSPECT_READY = 0;

	/** {@code inspect.lua}: "delayed". */
	public static final int INSPECT_DELAYED = 1;

	/** {@code inspect.lua}: "in flight". */
	public static final int INSPECT_IN_FLIGHT = 2;

	/** {@code inspect.lua}: "dead". */
	public static final int INSPECT_DEAD = 3;

	/** {@code inspect.lua}: "completed". */
	public static final int INSPECT_COMPLETED = 4;

	/** {@code inspect.lua}: "paused (1/0)". */
	public static final int INSPECT_PAUSED = 5;

	/** {@code inspect.lua}: "counters (flat hash)"; fields starting with {@code ~} are internal. */
	public static final int INSPECT_COUNTERS = 6;

	/** {@code inspect.lua}: "age in ms of the job at the head of the queue [...] -1 when none is ready". */
	public static final int INSPECT_HEAD_AGE = 7;

	/** {@code inspect.lua}: "completions of about the last minute". */
	public static final int INSPECT_RECENT_COMPLETIONS = 8;

	/** {@code inspect.lua}: "and the ms they cover". */
	public static final int INSPECT_RECENT_SPAN = 9;

	/** {@code inspect.lua}: "then per dead job: [...]", from here on. */
	public static final int INSPECT_FIRST_DEAD = 10;

	/** {@code inspect.lua}, per dead job: "id". */
	public static final int DEAD_ID = 0;

	/** {@code inspect.lua}, per dead job: "payload". */
	public static final int DEAD_PAYLOAD = 1;

	/** {@code inspect.lua}, per dead job: "headers". */
	public static final int DEAD_HEADERS = 2;

	/** {@code inspect.lua}, per dead job: "attempts". */
	public static final int DEAD_ATTEMPTS = 3;

	/** {@code inspect.lua}, per dead job: "error". */
	public static final int DEAD_ERROR = 4;

	/** {@code inspect.lua}, per dead job: "time of death". */
	public static final int DEAD_DIED_AT = 5;

	/** {@code inspect.lua}: six values per dead job. */
	public static final int DEAD_STRIDE = 6;

	/** {@code dead.lua}: "Returns the number of jobs retried or purged". */
	public static final int DEAD_OP_TOUCHED = 0;

	/** {@code dead.lua}: "the number refused". */
	public static final int DEAD_OP_REFUSED = 1;

	/** {@code dead.lua}: "and the server time". */
	public static final int DEAD_OP_SERVER_TIME = 2;

	/** {@code jobs.lua} 'list', per job: "id". */
	public static final int LISTED_ID = 0;

	/** {@code jobs.lua} 'list', per job: "index score (as text)". */
	public static final int LISTED_SCORE = 1;

	/** {@code jobs.lua} 'list', per job: "its fields as job_view gives them". */
	public static final int LISTED_FIELDS = 2;

	/** {@code jobs.lua} 'list': three values per job. */
	public static final int LISTED_STRIDE = 3;

	/** {@code workers.lua}: "Returns per worker: id". */
	public static final int WORKER_ID = 0;

	/** {@code workers.lua}: "then its hash as a flat list". */
	public static final int WORKER_FIELDS = 1;

	/** {@code workers.lua}: two values per worker. */
	public static final int WORKER_STRIDE = 2;

	public static QueueCounts counts(String queue, List<?> reply) {
		long headAge = asLong(reply.get(INSPECT_HEAD_AGE));
		return new QueueCounts(queue, asLong(reply.get(INSPECT_READY)), asLong(reply.get(INSPECT_DELAYED)),
				asLong(reply.get(INSPECT_IN_FLIGHT)), asLong(reply.get(INSPECT_DEAD)),
				asLong(reply.get(INSPECT_COMPLETED)), asLong(reply.get(INSPECT_PAUSED)) == 1,
				totals((List<?>) reply.get(INSPECT_COUNTERS)), (headAge >= 0) ? Duration.ofMillis(headAge) : null,
				asLong(reply.get(INSPECT_RECENT_COMPLETIONS)) * 1000.0
						/ Math.max(1, asLong(reply.get(INSPECT_RECENT_SPAN))));
	}

	/** The counters of a flat hash; a value that is not a number is left out. */
	public static Map<String, Long> totals(List<?> flat) {
		Map<String, Long> totals = new HashMap<>();
		for (int i = 0; i + 1 < flat.size(); i += 2) {
			String name = text(flat.get(i));
			Long value = parseLong(text(flat.get(i + 1)));
			if (!name.startsWith("~") && value != null) {
				totals.put(name, value);
			}
		}
		return Collections.unmodifiableMap(totals);
	}

	public static List<DeadJob> deadLetters(List<?> reply, Function<byte[], Map<String, String>> headers) {
		List<DeadJob> jobs = new ArrayList<>();
		for (int at = INSPECT_FIRST_DEAD; at + DEAD_STRIDE <= reply.size(); at += DEAD_STRIDE) {
			jobs.add(new DeadJob(text(reply.get(at + DEAD_ID)), (byte[]) reply.get(at + DEAD_PAYLOAD),
					headers.apply(bytes(reply.get(at + DEAD_HEADERS))), (int) asLong(reply.get(at + DEAD_ATTEMPTS)),
					text(reply.get(at + DEAD_ERROR)), instant(reply.get(at + DEAD_DIED_AT))));
		}
		return jobs;
	}

	/**
	 * A job from its hash ({@code HGETALL}); empty when the hash is gone. A field that is missing
	 * or not a number reads as absent (or 0), so a damaged hash still shows.
	 */
	public static Optional<JobInfo> job(String queue, String id, @Nullable Map<byte[], byte[]> hash,
			Function<byte[], Map<String, String>> headers) {
		if (hash == null || hash.isEmpty()) {
			return Optional.empty();
		}
		Map<String, byte[]> f = new HashMap<>();
		hash.forEach((field, value) -> f.put(new String(field, StandardCharsets.UTF_8), value));
		return Optional.of(new JobInfo(queue, id, jobState(textField(f, "state")), f.getOrDefault("payload", EMPTY),
				headers.apply(f.getOrDefault("headers", EMPTY)), (int) longField(f, "priority"),
				(int) longField(f, "attempts"), (int) longField(f, "maxAttempts"),
				Instant.ofEpochMilli(longField(f, "enqueuedAt")), instantField(f, "dueAt"), instantField(f, "expireAt"),
				instantField(f, "leaseUntil"), emptyToNull(textField(f, "worker")),
				emptyToNull(textField(f, "error")), instantField(f, "finishedAt"),
				emptyToNull(textField(f, "progress"))));
	}

	/**
	 * A job from a flat list of the names and values of its fields ({@code inspect.lua} 'job',
	 * {@code jobs.lua} 'list'); empty when the list is.
	 */
	public static Optional<JobInfo> flatJob(String queue, String id, List<?> flat,
			Function<byte[], Map<String, String>> headers) {
		Map<byte[], byte[]> fields = new LinkedHashMap<>();
		for (int at = 0; at + 1 < flat.size(); at += 2) {
			fields.put(bytes(flat.get(at)), bytes(flat.get(at + 1)));
		}
		return job(queue, id, fields, headers);
	}

	/**
	 * {@code jobs.lua} 'list': "per job: id, index score (as text), its fields", each job with its
	 * score, in the order of the reply.
	 */
	public static List<ListedJob> listedJobs(String queue, List<?> reply, Function<byte[], Map<String, String>> headers) {
		List<ListedJob> jobs = new ArrayList<>(reply.size() / LISTED_STRIDE);
		for (int at = 0; at + LISTED_STRIDE <= reply.size(); at += LISTED_STRIDE) {
			double score = Double.parseDouble(text(reply.get(at + LISTED_SCORE)));
			flatJob(queue, text(reply.get(at + LISTED_ID)), (List<?>) reply.get(at + LISTED_FIELDS), headers)
				.ifPresent((job) -> jobs.add(new ListedJob(job, score)));
		}
		return jobs;
	}

	public static JobState jobState(String value) {
		return switch (value) {
			case "ready" -> JobState.READY;
			case "delayed" -> JobState.DELAYED;
			case "waiting" -> JobState.WAITING;
			case "active" -> JobState.ACTIVE;
			case "completed" -> JobState.COMPLETED;
			case "dead" -> JobState.DEAD;
			default -> JobState.UNKNOWN;
		};
	}

	public static List<WorkerInfo> workers(@Nullable List<?> reply) {
		List<WorkerInfo> workers = new ArrayList<>();
		for (int at = 0; reply != null && at + WORKER_STRIDE <= reply.size(); at += WORKER_STRIDE) {
			Map<String, byte[]> f = new HashMap<>();
			List<?> flat = (List<?>) reply.get(at + WORKER_FIELDS);
			for (int j = 0; j + 1 < flat.size(); j += 2) {
				f.put(text(flat.get(j)), (byte[]) flat.get(j + 1));
			}
			String queues = textField(f, "queues");
			workers.add(new WorkerInfo(text(reply.get(at + WORKER_ID)), textField(f, "host"),
					queues.isEmpty() ? List.of() : List.of(queues.split(",")), (int) longField(f, "runningJobs"),
					instantField(f, "startedAt"), instantField(f, "lastSeen")));
		}
		return workers;
	}

	/** A page of {@code silent.lua}: how many workers it moved to the silent set, and the page's ids. */
	public record SilentPage(long moved, List<String> ids) {
	}

	/** {@code silent.lua}: "Returns the number moved, then the page's worker ids". */
	public static SilentPage silentPage(@Nullable List<?> reply) {
		List<String> ids = new ArrayList<>();
		if (reply == null || reply.isEmpty()) {
			return new SilentPage(0, ids);
		}
		reply.subList(1, reply.size()).forEach((id) -> ids.add(text(id)));
		return new SilentPage(asLong(reply.get(0)), ids);
	}

	/** A page of {@code workers.lua}: the number of live entries it read, and its workers. */
	public record WorkerPage(long read, List<WorkerInfo> workers) {
	}

	/** {@code workers.lua}: "Returns the number of live entries the page read, then per worker". */
	public static WorkerPage workerPage(@Nullable List<?> reply) {
		if (reply == null || reply.isEmpty()) {
			return new WorkerPage(0, List.of());
		}
		return new WorkerPage(asLong(reply.get(0)), workers(reply.subList(1, reply.size())));
	}

	public static DeadOpReply deadOp(List<?> reply) {
		return new DeadOpReply(asLong(reply.get(DEAD_OP_TOUCHED)), asLong(reply.get(DEAD_OP_REFUSED)),
				asLong(reply.get(DEAD_OP_SERVER_TIME)));
	}

	/**
	 * {@code batch.lua} 'status' from {@code at}: "state, cap, priority, total, admitted,
	 * completed, dead, cancelled, created at, finished at, completion queue, waiting".
	 */
	public static BatchStatus batchStatus(String queue, String id, List<?> reply, int at) {
		long finishedAt = asLong(reply.get(at + 9));
		String completionQueue = text(reply.get(at + 10));
		return new BatchStatus(queue, id, BatchState.of(text(reply.get(at))), (int) asLong(reply.get(at + 1)),
				(int) asLong(reply.get(at + 2)), asLong(reply.get(at + 3)), asLong(reply.get(at + 11)),
				asLong(reply.get(at + 4)), asLong(reply.get(at + 5)), asLong(reply.get(at + 6)),
				asLong(reply.get(at + 7)), Instant.ofEpochMilli(asLong(reply.get(at + 8))),
				(finishedAt > 0) ? Instant.ofEpochMilli(finishedAt) : null,
				completionQueue.isEmpty() ? null : completionQueue);
	}

	/** {@code batch.lua} 'list': "the number of open batches, then per batch its id and the 12 values of 'status'". */
	public static List<BatchStatus> batchList(String queue, List<?> reply) {
		List<BatchStatus> batches = new ArrayList<>();
		for (int at = 1; at + 1 + BATCH_STATUS_STRIDE <= reply.size(); at += 1 + BATCH_STATUS_STRIDE) {
			batches.add(batchStatus(queue, text(reply.get(at)), reply, at + 1));
		}
		return batches;
	}

	public static String textField(Map<String, byte[]> fields, String name) {
		byte[] value = fields.get(name);
		return (value != null) ? new String(value, StandardCharsets.UTF_8) : "";
	}

	/** A numeric field of a job or worker hash; 0 when it is missing or not a number (damaged by hand). */
	public static long longField(Map<String, byte[]> fields, String name) {
		Long value = parseLong(textField(fields, name));
		return (value != null) ? value : 0;
	}

	public static @Nullable Instant instantField(Map<String, byte[]> fields, String name) {
		long value = longField(fields, name);
		return (value > 0) ? Instant.ofEpochMilli(value) : null;
	}

	public static @Nullable Long parseLong(String value) {
		try {
			return value.isEmpty() ? null : Long.parseLong(value);
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	public static @Nullable String emptyToNull(String value) {
		return value.isEmpty() ? null : value;
	}

	/** A decoded {@code dead.lua} reply. */
	public record DeadOpReply(long touched, long refused, long serverTime) {
	}

	/** A job of a {@code jobs.lua} 'list' reply with the score of its index. */
	public record ListedJob(JobInfo job, double score) {
	}

}
