package io.github.redisqueue.core.script;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.EnqueueResult;
import io.github.redisqueue.core.ExtendResult;
import io.github.redisqueue.core.FailResult;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.ReapResult;
import io.github.redisqueue.core.Reservation;
import io.github.redisqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

/**
 * The contract between the Lua scripts and Java for the job lifecycle: one decoder per reply of
 * the enqueue, reserve, complete, fail, extend, progress, release and reap scripts (the replies of
 * the inspection and administration scripts are decoded by {@link InspectReplies}). Each position
 * constant names the part of the script's {@code Returns:} header it reads (scripts under
 * {@code io/github/redisqueue/scripts/}).
 */
public final class ScriptReplies {

	public static final byte[] EMPTY = new byte[0];

	/** {@code enqueue.lua}: "Returns id, created flag [...] per job": the job id. */
	public static final int ENQUEUE_ID = 0;

	/** {@code enqueue.lua}: "created flag (1 new, 0 refused as duplicate: id is the existing job's)". */
	public static final int ENQUEUE_CREATED = 1;

	/** {@code enqueue.lua}: two values per job. */
	public static final int ENQUEUE_STRIDE = 2;

	/**
	 * {@code enqueue.lua}: "for plain jobs that took a range of ids, -1, the first id, the step
	 * between ids and the count": the first value of such a reply.
	 */
	public static final long ENQUEUE_RANGE = -1;

	/** {@code reserve.lua}: "next due time of a delayed job (-1 none)". */
	public static final int RESERVE_NEXT_DUE = 0;

	/** {@code reserve.lua}: "reclaimed". */
	public static final int RESERVE_RECLAIMED = 1;

	/** {@code reserve.lua}: "expired". */
	public static final int RESERVE_EXPIRED = 2;

	/** {@code reserve.lua}: "count" of the jobs that follow. */
	public static final int RESERVE_COUNT = 3;

	/** {@code reserve.lua}: "acknowledgements refused as stale". */
	public static final int RESERVE_REFUSED = 4;

	/** {@code reserve.lua}: "acknowledgements of jobs that no longer exist". */
	public static final int RESERVE_MISSING = 5;

	/** {@code reserve.lua}: "server time (ms)". */
	public static final int RESERVE_SERVER_TIME = 6;

	/** {@code reserve.lua}: "finished batches whose completion job waits to be handed off". */
	public static final int RESERVE_BATCHES_DONE = 7;

	/**
	 * {@code reserve.lua}: "when the rate limit cut the call short the time its next hand-out is
	 * due (ms, server clock; -1 otherwise)".
	 */
	public static final int RESERVE_RATE_LIMITED_UNTIL = 8;

	/**
	 * {@code reserve.lua}: "1 when a bound of the call's own (payload bytes, jobs it could not hand
	 * out) cut it short while jobs are still ready, 0 otherwise".
	 */
	public static final int RESERVE_CUT_SHORT = 9;

	/** {@code reserve.lua}: "then per job: [...]", from here on. */
	public static final int RESERVE_FIRST_JOB = 10;

	/** {@code batch.lua} 'pending': values per batch, from the id to "created at". */
	public static final int BATCH_PENDING_STRIDE = 11;

	/** {@code reserve.lua}, per job: "id". */
	public static final int JOB_ID = 0;

	/**
	 * {@code reserve.lua}, per job: "payload" (its bytes; or, for one kept apart, its length as a
	 * number: the caller reads it from the job's field).
	 */
	public static final int JOB_PAYLOAD = 1;

	/** {@code reserve.lua}, per job: "headers". */
	public static final int JOB_HEADERS = 2;

	/** {@code reserve.lua}, per job: "attempt". */
	public static final int JOB_ATTEMPT = 3;

	/** {@code reserve.lua}, per job: "max attempts". */
	public static final int JOB_MAX_ATTEMPTS = 4;

	/** {@code reserve.lua}, per job: "token". */
	public static final int JOB_TOKEN = 5;

	/** {@code reserve.lua}, per job: "lease deadline". */
	public static final int JOB_LEASE_UNTIL = 6;

	/** {@code reserve.lua}, per job: "enqueued at". */
	public static final int JOB_ENQUEUED_AT = 7;

	/** {@code reserve.lua}, per job: "priority". */
	public static final int JOB_PRIORITY = 8;

	/** {@code reserve.lua}, per job: "ms it waited ready (by the server clock)". */
	public static final int JOB_WAITED = 9;

	/** {@code reserve.lua}: ten values per job. */
	public static final int JOB_STRIDE = 10;

	/** {@code jobs.lua} 'delete' and 'promote': the code, first. */
	public static final int JOBS_CODE = 0;

	/** {@code jobs.lua} 'delete': "1, the job's state"; 'promote': "1 when it is ready now". */
	public static final long JOBS_DONE = 1;

	/** {@code jobs.lua} 'delete': "-1, the worker holding it and its lease deadline when it is active". */
	public static final long JOBS_DELETE_ACTIVE = -1;

	/** {@code jobs.lua} 'delete', after -1: "the worker holding it". */
	public static final int JOBS_DELETE_WORKER = 1;

	/** {@code jobs.lua} 'delete', after -1: "its lease deadline". */
	public static final int JOBS_DELETE_LEASE_UNTIL = 2;

	/** {@code jobs.lua} 'promote': "-1 when it was dead-lettered instead". */
	public static final long JOBS_PROMOTE_DEAD = -1;

	/** {@code jobs.lua} 'promote': "then the reason ('' unless -1)". */
	public static final int JOBS_PROMOTE_REASON = 1;

	/**
	 * {@code jobs.lua} 'delete' after 1, 'promote': "the number of finished batches whose
	 * completion job waits to be handed off".
	 */
	public static final int JOBS_BATCHES_DONE = 2;

	/** {@code reap.lua}: "Returns reclaimed". */
	public static final int REAP_RECLAIMED = 0;

	/** {@code reap.lua}: "promoted". */
	public static final int REAP_PROMOTED = 1;

	/** {@code reap.lua}: "expired". */
	public static final int REAP_EXPIRED = 2;

	/** {@code reap.lua}: "purged completed". */
	public static final int REAP_PURGED_COMPLETED = 3;

	/** {@code reap.lua}: "purged dead". */
	public static final int REAP_PURGED_DEAD = 4;

	/** {@code reap.lua}: "taken from silent workers". */
	public static final int REAP_ABANDONED = 5;

	/** {@code reap.lua}: "finished batches whose completion job waits to be handed off". */
	public static final int REAP_BATCHES_DONE = 6;

	/** {@code release.lua}: "in worker mode the count taken back". */
	public static final int RELEASE_WORKER_TAKEN = 0;

	/** {@code release.lua}: "and the cursor of the next call (0 when done)". */
	public static final int RELEASE_WORKER_CURSOR = 1;

	/** {@code complete.lua}, {@code release.lua}, {@code extend.lua}, {@code fail.lua}: "-1 no such job". */
	public static final long CODE_NO_SUCH_JOB = -1;

	/** {@code complete.lua}, {@code release.lua}, {@code extend.lua}, {@code fail.lua}: "0 stale token". */
	public static final long CODE_STALE_TOKEN = 0;

	/** {@code complete.lua}: "1 acknowledged" (2, "already completed under that token", is also done). */
	public static final long COMPLETE_ACKNOWLEDGED = 1;

	/** {@code fail.lua}: "1 retry scheduled". */
	public static final long FAIL_RETRY_SCHEDULED = 1;

	/** {@code fail.lua}: "2 dead-lettered". */
	public static final long FAIL_DEAD_LETTERED = 2;

	/** {@code fail.lua}: "3 when finished batches wait for the hand-off of their completion job". */
	public static final long FAIL_DEAD_LETTERED_BATCHES_DONE = 3;

	private ScriptReplies() {
	}

	public static List<EnqueueResult> enqueueResults(List<?> reply) {
		if (!reply.isEmpty() && reply.get(0) instanceof Long marker && marker == ENQUEUE_RANGE) {
			// plain jobs with a range of new ids: the first, the step between ids, the count
			long first = asLong(reply.get(1));
			long step = asLong(reply.get(2));
			int count = (int) asLong(reply.get(3));
			List<EnqueueResult> results = new ArrayList<>(count);
			for (int i = 0; i < count; i++) {
				results.add(new EnqueueResult(Long.toString(first + i * step), false));
			}
			return results;
		}
		List<EnqueueResult> results = new ArrayList<>(reply.size() / ENQUEUE_STRIDE);
		for (int at = 0; at + ENQUEUE_STRIDE <= reply.size(); at += ENQUEUE_STRIDE) {
			results.add(new EnqueueResult(text(reply.get(at + ENQUEUE_ID)), asLong(reply.get(at + ENQUEUE_CREATED)) == 0));
		}
		return results;
	}

	/**
	 * The reservation of one reserve call whose first {@code startNow} jobs started at once (the
	 * others were reserved ahead), and how long each of its jobs waited ready, in the same order.
	 * A payload that the reply gives as its length (kept apart, see {@code reserve.lua}) is read by
	 * {@code apart}, given those jobs in reply order and answering their payloads in the same order,
	 * {@code null} for one it could not read: such a job is left out (its caller gives it back), and
	 * the reservation then says it was cut short, so that a consumer asks again at once.
	 */
	public static ReserveReply reservation(String queue, List<?> reply, Function<byte[], Map<String, String>> headers,
			int startNow, Function<List<JobRef>, List<byte @Nullable []>> apart) {
		long nextDue = asLong(reply.get(RESERVE_NEXT_DUE));
		long rateLimitedUntil = asLong(reply.get(RESERVE_RATE_LIMITED_UNTIL));
		int count = (int) asLong(reply.get(RESERVE_COUNT));
		List<JobRef> apartJobs = apartJobs(reply);
		List<byte @Nullable []> apartPayloads = apartJobs.isEmpty() ? List.of() : apart.apply(apartJobs);
		List<ReservedJob> jobs = new ArrayList<>(count);
		List<Duration> waits = new ArrayList<>(count);
		List<String> ahead = new ArrayList<>();
		boolean leftOut = false;
		for (int i = 0, at = RESERVE_FIRST_JOB, a = 0; i < count; i++, at += JOB_STRIDE) {
			byte[] payload = (reply.get(at + JOB_PAYLOAD) instanceof byte[] inReply) ? inReply : apartPayloads.get(a++);
			if (payload == null) {
				leftOut = true;
				continue;
			}
			String id = text(reply.get(at + JOB_ID));
			jobs.add(new ReservedJob(queue, id, payload, headers.apply(bytes(reply.get(at + JOB_HEADERS))),
					(int) asLong(reply.get(at + JOB_ATTEMPT)), (int) asLong(reply.get(at + JOB_MAX_ATTEMPTS)),
					asLong(reply.get(at + JOB_TOKEN)), instant(reply.get(at + JOB_LEASE_UNTIL)),
					instant(reply.get(at + JOB_ENQUEUED_AT)), (int) asLong(reply.get(at + JOB_PRIORITY))));
			waits.add(Duration.ofMillis(asLong(reply.get(at + JOB_WAITED))));
			if (i >= startNow) {
				ahead.add(id);
			}
		}
		Reservation reservation = new Reservation(jobs, (nextDue >= 0) ? Instant.ofEpochMilli(nextDue) : null,
				(int) asLong(reply.get(RESERVE_RECLAIMED)), (int) asLong(reply.get(RESERVE_EXPIRED)),
				(int) asLong(reply.get(RESERVE_REFUSED)), (int) asLong(reply.get(RESERVE_MISSING)),
				instant(reply.get(RESERVE_SERVER_TIME)), List.of(),
				(rateLimitedUntil >= 0) ? Instant.ofEpochMilli(rateLimitedUntil) : null, List.copyOf(ahead),
				leftOut || asLong(reply.get(RESERVE_CUT_SHORT)) == 1);
		return new ReserveReply(reservation, waits, asLong(reply.get(RESERVE_BATCHES_DONE)));
	}

	/** Whether a reserve reply left a payload out for its size (see {@link #apartJobs}). */
	public static boolean hasApartPayloads(List<?> reply) {
		int count = (int) asLong(reply.get(RESERVE_COUNT));
		for (int i = 0, at = RESERVE_FIRST_JOB; i < count; i++, at += JOB_STRIDE) {
			if (!(reply.get(at + JOB_PAYLOAD) instanceof byte[])) {
				return true;
			}
		}
		return false;
	}

	/** The jobs of a reserve reply that it handed out by their payload's length, in reply order. */
	public static List<JobRef> apartJobs(List<?> reply) {
		int count = (int) asLong(reply.get(RESERVE_COUNT));
		List<JobRef> jobs = new ArrayList<>();
		for (int i = 0, at = RESERVE_FIRST_JOB; i < count; i++, at += JOB_STRIDE) {
			if (!(reply.get(at + JOB_PAYLOAD) instanceof byte[])) {
				jobs.add(new JobRef(text(reply.get(at + JOB_ID)), asLong(reply.get(at + JOB_TOKEN))));
			}
		}
		return jobs;
	}

	public static ReapResult reapResult(List<?> reply) {
		return new ReapResult(asLong(reply.get(REAP_RECLAIMED)), asLong(reply.get(REAP_PROMOTED)),
				asLong(reply.get(REAP_EXPIRED)), asLong(reply.get(REAP_PURGED_COMPLETED)),
				asLong(reply.get(REAP_PURGED_DEAD)), asLong(reply.get(REAP_ABANDONED)));
	}

	public static WorkerReleaseReply workerRelease(List<?> reply) {
		return new WorkerReleaseReply(asLong(reply.get(RELEASE_WORKER_TAKEN)), asLong(reply.get(RELEASE_WORKER_CURSOR)));
	}

	/** {@code complete.lua}: the per-pair results, without the trailing count of finished batches. */
	public static List<?> completeCodes(List<?> reply) {
		return reply.subList(0, Math.max(0, reply.size() - 1));
	}

	/** {@code complete.lua}: "then the number of finished batches whose completion job waits to be handed off". */
	public static long completeBatchesDone(List<?> reply) {
		return reply.isEmpty() ? 0 : asLong(reply.get(reply.size() - 1));
	}

	/** Per pair of {@code complete.lua} and {@code release.lua}: done, stale token, or no such job. */
	public static List<AckResult> ackResults(List<?> reply) {
		List<AckResult> results = new ArrayList<>(reply.size());
		reply.forEach((code) -> results.add(ackResult(asLong(code))));
		return results;
	}

	public static AckResult ackResult(long code) {
		return (code > CODE_STALE_TOKEN) ? AckResult.OK
				: (code == CODE_STALE_TOKEN) ? AckResult.STALE_TOKEN : AckResult.NOT_FOUND;
	}

	/** How many pairs of {@code complete.lua} were acknowledged now (not before). */
	public static long acknowledged(List<?> reply) {
		return reply.stream().filter((code) -> asLong(code) == COMPLETE_ACKNOWLEDGED).count();
	}

	/** Per pair of {@code extend.lua}: "the new deadline, 0 stale token, -1 no such job". */
	public static List<ExtendResult> extendResults(List<?> reply) {
		List<ExtendResult> results = new ArrayList<>(reply.size());
		for (Object value : reply) {
			long code = asLong(value);
			results.add((code > CODE_STALE_TOKEN) ? new ExtendResult(AckResult.OK, Instant.ofEpochMilli(code))
					: new ExtendResult(ackResult(code), null));
		}
		return results;
	}

	/** {@code progress.lua}: "Returns 1 written, 0 stale token (not active under it), -1 no such job". */
	public static boolean progressWritten(List<?> reply) {
		return asLong(reply.get(0)) == 1;
	}

	/** {@code fail.lua}: "Returns 1 retry scheduled, 2 dead-lettered, 0 stale token, -1 no such job". */
	public static FailResult failResult(List<?> reply) {
		long code = asLong(reply.get(0));
		if (code == FAIL_RETRY_SCHEDULED) {
			return FailResult.RETRY_SCHEDULED;
		}
		if (code == FAIL_DEAD_LETTERED || code == FAIL_DEAD_LETTERED_BATCHES_DONE) {
			return FailResult.DEAD_LETTERED;
		}
		return (code == CODE_STALE_TOKEN) ? FailResult.STALE_TOKEN : FailResult.NOT_FOUND;
	}

	/** Whether a {@code fail.lua} reply reports finished batches waiting for their hand-off. */
	public static boolean failBatchesDone(List<?> reply) {
		return asLong(reply.get(0)) == FAIL_DEAD_LETTERED_BATCHES_DONE;
	}

	public static long asLong(Object value) {
		return (value instanceof Long number) ? number : Long.parseLong(text(value));
	}

	public static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
	}

	public static byte[] bytes(@Nullable Object value) {
		return (value instanceof byte[] b) ? b : EMPTY;
	}

	public static Instant instant(Object value) {
		return Instant.ofEpochMilli(asLong(value));
	}

	/** A decoded {@code reserve.lua} reply: the reservation, and each job's wait in the same order. */
	public record ReserveReply(Reservation reservation, List<Duration> waits, long batchesDone) {
	}

	/** A decoded {@code release.lua} reply in worker mode. */
	public record WorkerReleaseReply(long taken, long cursor) {
	}

}
