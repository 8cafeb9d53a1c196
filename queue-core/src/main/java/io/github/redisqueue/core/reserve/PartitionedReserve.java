package io.github.redisqueue.core.reserve;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueScripts;
import io.github.redisqueue.core.Reservation;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.partition.QueuePartitions;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueScriptExecutor;
import io.github.redisqueue.core.script.ScriptReplies;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * One reserve of a partitioned queue, in one of two ways.
 *
 * <p><b>Shared</b> ({@code QueueTemplate.reserveBatch}): the first round calls the partitions at
 * once, each with an equal share of the jobs wanted (the shares left over go to the partitions
 * first in turn) and the completions of its own jobs; a partition with completions and no share
 * gets them by the complete script, and one with neither is not called.
 *
 * <p><b>In turn</b> ({@code QueueTemplate.reserveInTurn}, for fetch loops): the first round asks
 * the partition whose turn it is for all the jobs wanted, with its completions; the completions
 * of the other partitions go to theirs by the complete script in the same round (sent together,
 * so one round trip), never held back for a later turn: a completion that waited for its
 * partition's turn would wait up to P reserves, longer than a lease on a busy container. A busy
 * queue then costs one reserve call per reserve, each carrying as many jobs as a queue of one
 * partition's would, which is what lets the partitions' masters each do a share of the work
 * rather than each pay a call's fixed cost for fewer jobs.
 *
 * <p>Either way the turn moves on with every reserve, so that every partition comes first in
 * turn once in every P reserves and none is served ahead of another over time. Partitions that
 * filled their share may hold more, and those not asked yet may hold some: while jobs are still
 * wanted, further rounds share what is missing equally among them alone, all at once (with the
 * completions of each not sent yet). Every round either fills what is wanted or leaves out a
 * partition that came up short, so a reserve takes at most one round more than there are
 * partitions, and one that comes back short has asked every partition: each one's announcement
 * is cleared (so that its next wake-up is announced again) and its next due time is in the reply,
 * which is what a fetch loop needs before it waits. Each reserve call also promotes its
 * partition's due delayed jobs and reclaims its expired leases.
 *
 * <p>A partition that does not answer is skipped: the jobs the others handed out are returned,
 * and the completions sent to it come back as unsent; only when no partition answers does the
 * call fail. Reserves leave such a partition out for {@link #SKIP} after its failure (unless all
 * are left out), so that a master being failed over costs the others one wait for its answer per
 * second at most, not one per reserve.
 */
public final class PartitionedReserve {

	private static final Logger logger = LoggerFactory.getLogger(PartitionedReserve.class);

	/** How long reserves leave out a partition that failed to answer. */
	public static final Duration SKIP = Duration.ofSeconds(1);

	private final QueueContext context;

	private final JobReserver reserver;

	private final String queue;

	private final QueueKeys[] parts;

	private final int first;

	private final boolean inTurn;

	public PartitionedReserve(QueueContext context, JobReserver reserver, String queue, QueueKeys[] parts, int first,
			boolean inTurn) {
		this.context = context;
		this.reserver = reserver;
		this.queue = queue;
		this.parts = parts;
		this.first = first;
		this.inTurn = inTurn;
	}

	public Reservation reserve(int max, Duration lease, String workerId, Collection<JobRef> completions, int maxAttempts,
			int startNow) {
		int count = this.parts.length;
		// per partition, the completions of its jobs not sent yet
		List<List<JobRef>> acks = new ArrayList<>(count);
		for (int p = 0; p < count; p++) {
			acks.add(new ArrayList<>());
		}
		for (JobRef ref : completions) {
			acks.get(QueuePartitions.partitionOfId(ref.id(), count)).add(ref);
		}
		// partitions in turn order that may hold ready jobs
		List<Integer> candidates = new ArrayList<>(count);
		Merged merged = new Merged();
		for (int i = 0; i < count; i++) {
			int p = (this.first + i) % count;
			if (!this.context.partitioning().skipped(this.parts[p])) {
				candidates.add(p);
			}
		}
		if (candidates.isEmpty()) {
			for (int i = 0; i < count; i++) {
				candidates.add((this.first + i) % count);
			}
		}
		int remaining = max;
		int startLeft = Math.max(0, startNow);
		boolean firstRound = true;
		RuntimeException lastFailure = null;
		int answered = 0;
		Set<String> silent = new TreeSet<>();
		QueueScripts scripts = this.context.executor().scripts();
		while (firstRound || (remaining > 0 && !candidates.isEmpty())) {
			List<Integer> called = new ArrayList<>();
			// per call, the jobs asked of its partition; -1 for a call that only completes
			List<Integer> shares = new ArrayList<>();
			// per call, how many of its jobs start at once (the others are marked as reserved ahead)
			List<Integer> starts = new ArrayList<>();
			List<List<JobRef>> sent = new ArrayList<>();
			List<RedisScript<?>> calls = new ArrayList<>();
			List<QueueKeys> keys = new ArrayList<>();
			List<List<byte[]>> args = new ArrayList<>();
			int n = candidates.size();
			for (int i = 0; i < n; i++) {
				int p = candidates.get(i);
				int share = (firstRound && this.inTurn) ? ((i == 0) ? remaining : 0)
						: remaining / n + ((i < remaining % n) ? 1 : 0);
				List<JobRef> acksOf = acks.get(p);
				if (share == 0 && (acksOf.isEmpty() || !firstRound)) {
					continue;
				}
				called.add(p);
				keys.add(this.parts[p]);
				sent.add(acksOf);
				acks.set(p, List.of());
				if (share == 0) {
					// nothing to take there this time: its completions alone, by the cheaper script
					shares.add(-1);
					starts.add(0);
					calls.add(scripts.complete());
					args.add(this.reserver.completeArgs(acksOf));
					continue;
				}
				int start = Math.min(startLeft, share);
				startLeft -= start;
				shares.add(share);
				starts.add(start);
				calls.add(scripts.reserve());
				// a partitioned queue has no rate limit (QueueSettings refuses one)
				args.add(this.reserver.reserveArgs(share, lease, workerId, acksOf, maxAttempts, start, null));
			}
			QueueScriptExecutor.Each each = this.context.executor().runEach(calls, keys, args);
			// the reserves that answered, decoded together: the payloads they hand out apart are read
			// with one HMGET per partition, all sent at once
			List<Integer> reserved = new ArrayList<>();
			List<List<Object>> replies = new ArrayList<>();
			List<QueueKeys> replied = new ArrayList<>();
			List<Integer> startsOf = new ArrayList<>();
			for (int i = 0; i < called.size(); i++) {
				if (each.failures()[i] == null && shares.get(i) >= 0) {
					reserved.add(i);
					replies.add(each.reply(i));
					replied.add(keys.get(i));
					startsOf.add(starts.get(i));
				}
			}
			List<ScriptReplies.ReserveReply> parsed = replies.isEmpty() ? List.of()
					: this.reserver.parseEach(this.queue, replied, replies, startsOf);
			for (int i = 0; i < called.size(); i++) {
				int p = called.get(i);
				RuntimeException failure = each.failures()[i];
				if (failure != null) {
					lastFailure = failure;
					silent.add(this.parts[p].name());
					this.context.partitioning().skip(this.parts[p], SKIP);
					candidates.remove((Integer) p);
					merged.unsent.addAll(sent.get(i));
					// the threads it would have started are left for the next round
					startLeft += starts.get(i);
					logger.debug("Partition {} of queue '{}' did not answer a reserve", this.parts[p].name(), this.queue,
							failure);
					continue;
				}
				answered++;
				if (shares.get(i) < 0) {
					merged.addCompletions(this.reserver.completedOn(this.queue, this.parts[p], each.reply(i)));
					continue;
				}
				Reservation part = this.reserver.reserved(this.queue, this.parts[p], parsed.get(reserved.indexOf(i)));
				merged.add(part);
				int got = part.jobs().size();
				// a partition that came up short started fewer: those threads are left for the next round
				startLeft += starts.get(i) - Math.min(starts.get(i), got);
				remaining -= got;
				if (got < shares.get(i)) {
					candidates.remove((Integer) p);
				}
			}
			firstRound = false;
		}
		// completions of partitions left out (they failed to answer lately) wait for a later call
		acks.forEach(merged.unsent::addAll);
		if (answered == 0 && lastFailure != null) {
			throw lastFailure;
		}
		if (this.context.partitioning().silent(this.queue, silent) && lastFailure != null) {
			logger.warn("Partitions {} of queue '{}' did not answer; the other partitions are served meanwhile: {}",
					silent, this.queue, lastFailure.toString());
		}
		return merged.reservation();
	}

	/** The replies of the partitions, merged into one reservation. */
	private static final class Merged {

		final List<ReservedJob> jobs = new ArrayList<>();

		final List<JobRef> unsent = new ArrayList<>();

		final List<String> ahead = new ArrayList<>();

		@Nullable Instant nextDue;

		int reclaimed;

		int expired;

		int refused;

		int missing;

		boolean cutShort;

		Instant serverTime = Instant.EPOCH;

		/** The codes of a complete call: refused (stale) and missing ones counted. */
		public void addCompletions(List<?> codes) {
			for (Object code : codes) {
				long value = ScriptReplies.asLong(code);
				if (value == 0) {
					this.refused++;
				}
				else if (value == -1 || value == 2) {
					this.missing++;
				}
			}
		}

		public void add(Reservation part) {
			this.jobs.addAll(part.jobs());
			this.ahead.addAll(part.reservedAhead());
			if (part.nextDue() != null && (this.nextDue == null || part.nextDue().isBefore(this.nextDue))) {
				this.nextDue = part.nextDue();
			}
			this.reclaimed += part.reclaimed();
			this.expired += part.expired();
			this.refused += part.refusedCompletions();
			this.missing += part.missingCompletions();
			this.cutShort |= part.cutShort();
			if (part.serverTime().isAfter(this.serverTime)) {
				this.serverTime = part.serverTime();
			}
		}

		public Reservation reservation() {
			// the jobs that start at once come first, as a reserve hands them out (a later round may
			// start some after jobs an earlier round reserved ahead): a consumer runs its jobs in the
			// order handed out, and one started at once must not wait behind those
			Set<String> ahead = new HashSet<>(this.ahead);
			List<ReservedJob> jobs = new ArrayList<>(this.jobs.size());
			for (ReservedJob job : this.jobs) {
				if (!ahead.contains(job.id())) {
					jobs.add(job);
				}
			}
			for (ReservedJob job : this.jobs) {
				if (ahead.contains(job.id())) {
					jobs.add(job);
				}
			}
			return new Reservation(List.copyOf(jobs), this.nextDue, this.reclaimed, this.expired, this.refused,
					this.missing, this.serverTime, List.copyOf(this.unsent), null, List.copyOf(this.ahead), this.cutShort);
		}

	}

}
