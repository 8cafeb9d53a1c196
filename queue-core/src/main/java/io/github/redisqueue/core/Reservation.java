package io.github.redisqueue.core;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Everything one reserve call returned: the jobs, and what a fetch loop needs to decide how long
 * it may block before the next call.
 *
 * @param jobs the reserved jobs, in queue order
 * @param nextDue due time of the earliest delayed job, or {@code null} when none is delayed (Redis
 * clock)
 * @param reclaimed expired leases this call returned to the queue (or dead-lettered)
 * @param expired jobs this call dead-lettered because they expired before they started
 * @param refusedCompletions completions sent with the call that were refused because someone else
 * reserved their job since (the job runs again there)
 * @param missingCompletions completions sent with the call that found nothing to do: the job was
 * completed already (a resent completion) or no longer exists (completed
 * or purged already, or Redis lost it)
 * @param serverTime the Redis server clock when the call ran; compare {@code nextDue} with it, not
 * with this JVM's clock
 * @param unsentCompletions completions given to the call that it did not record, on a partitioned
 * queue: those of a partition that did not answer while others did (their fate is unknown), or
 * that reserves leave out for a moment after it failed to answer; send them with a later call (a recorded one then comes back as missing); always empty for a queue of one
 * partition, whose call fails as a whole
 * @param rateLimitedUntil when the queue's rate limit (see {@link RateLimit}) made the call hand out
 * fewer jobs than asked while more were ready, the time its next hand-out is due (Redis clock):
 * reserving earlier hands out nothing; {@code null} when the limit did not cut the call short
 * @param reservedAhead the ids of the jobs handed out beyond {@code startNow}, which Redis marked
 * as reserved ahead (waiting for a free thread): a consumer that starts one records the start
 * first, so that losing it counts against its max attempts (see docs/usage.md, attempts and losses)
 * @param cutShort whether the call handed out fewer jobs than asked, while jobs were still ready,
 * because it reached a bound of its own: the bytes of the payloads it handed out (one call stops
 * past 64 KB, a payload over 4 KB counting for a sixteenth), or the run of jobs it popped that
 * could not be handed out (expired, damaged, gone); or it took back as many expired leases as one
 * call may (more may have run out, which no wake-up announces); or a payload over 4 KB, read
 * after the call, was not there (the job was given back, or is no longer this call's, and is left
 * out); a reserve made at once takes more
 * @since 0.1.0
 */
public record Reservation(List<ReservedJob> jobs, @Nullable Instant nextDue, int reclaimed, int expired,
		int refusedCompletions, int missingCompletions, Instant serverTime, List<JobRef> unsentCompletions,
		@Nullable Instant rateLimitedUntil, List<String> reservedAhead, boolean cutShort) {

	/**
	 * A reservation of which no job was reserved ahead and that no bound of its own cut short.
	 * @param jobs the reserved jobs
	 * @param nextDue due time of the earliest delayed job, or {@code null}
	 * @param reclaimed expired leases returned to the queue
	 * @param expired jobs dead-lettered because they expired
	 * @param refusedCompletions completions refused as stale
	 * @param missingCompletions completions that found nothing to do
	 * @param serverTime the Redis server clock
	 * @param unsentCompletions completions the call did not record
	 * @param rateLimitedUntil when the next hand-out is due, or {@code null}
	 */
	public Reservation(List<ReservedJob> jobs, @Nullable Instant nextDue, int reclaimed, int expired,
			int refusedCompletions, int missingCompletions, Instant serverTime, List<JobRef> unsentCompletions,
			@Nullable Instant rateLimitedUntil) {
		this(jobs, nextDue, reclaimed, expired, refusedCompletions, missingCompletions, serverTime, unsentCompletions,
				rateLimitedUntil, List.of(), false);
	}

	/**
	 * A reservation that no rate limit cut short.
	 * @param jobs the reserved jobs
	 * @param nextDue due time of the earliest delayed job, or {@code null}
	 * @param reclaimed expired leases returned to the queue
	 * @param expired jobs dead-lettered because they expired
	 * @param refusedCompletions completions refused as stale
	 * @param missingCompletions completions that found nothing to do
	 * @param serverTime the Redis server clock
	 * @param unsentCompletions completions the call did not record
	 */
	public Reservation(List<ReservedJob> jobs, @Nullable Instant nextDue, int reclaimed, int expired,
			int refusedCompletions, int missingCompletions, Instant serverTime, List<JobRef> unsentCompletions) {
		this(jobs, nextDue, reclaimed, expired, refusedCompletions, missingCompletions, serverTime, unsentCompletions,
				null);
	}

	/**
	 * A reservation whose completions were all answered.
	 * @param jobs the reserved jobs
	 * @param nextDue due time of the earliest delayed job, or {@code null}
	 * @param reclaimed expired leases returned to the queue
	 * @param expired jobs dead-lettered because they expired
	 * @param refusedCompletions completions refused as stale
	 * @param missingCompletions completions that found nothing to do
	 * @param serverTime the Redis server clock
	 */
	public Reservation(List<ReservedJob> jobs, @Nullable Instant nextDue, int reclaimed, int expired,
			int refusedCompletions, int missingCompletions, Instant serverTime) {
		this(jobs, nextDue, reclaimed, expired, refusedCompletions, missingCompletions, serverTime, List.of());
	}

}
