package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reserve of a partitioned queue. The first round calls every partition at once: each gets
 * the completions of its own jobs and an equal share of the jobs wanted (the shares left over go
 * to the partitions first in turn, and the turn moves on with every reserve, so that over time no
 * partition is served ahead of another). Partitions that filled their share may hold more: while
 * jobs are still wanted, further rounds share what is missing among them alone. Every round
 * either fills what is wanted or leaves out a partition that came up short, so a reserve takes
 * at most one round more than there are partitions.
 *
 * <p>Calling every partition in the first round, even with no share, also clears each
 * partition's announcement (so that its next wake-up is announced again), promotes its due
 * delayed jobs, reclaims its expired leases and reports its next due time.
 *
 * <p>A partition that does not answer is skipped: the jobs the others handed out are returned,
 * and the completions sent to it come back as {@link Reservation#unsentCompletions()}; only when
 * no partition answers does the call fail. Reserves leave such a partition out for
 * {@link #SKIP} after its failure (unless all are left out), so that a master being failed over
 * costs the others one wait for its answer per second at most, not one per reserve.
 */
final class PartitionedReserve {

	private static final Logger logger = LoggerFactory.getLogger(PartitionedReserve.class);

	/** How long reserves leave out a partition that failed to answer. */
	static final Duration SKIP = Duration.ofSeconds(1);

	private final QueueTemplate template;

	private final String queue;

	private final QueueKeys[] parts;

	private final int first;

	PartitionedReserve(QueueTemplate template, String queue, QueueKeys[] parts, int first) {
		this.template = template;
		this.queue = queue;
		this.parts = parts;
		this.first = first;
	}

	Reservation reserve(int max, Duration lease, String workerId, Collection<JobRef> completions, int maxAttempts,
			int startNow) {
		int count = this.parts.length;
		List<List<JobRef>> acks = new ArrayList<>(count);
		for (int p = 0; p < count; p++) {
			acks.add(new ArrayList<>());
		}
		for (JobRef ref : completions) {
			acks.get(QueueTemplate.partitionOfId(ref.id(), count)).add(ref);
		}
		// partitions in turn order; those that may hold more ready jobs
		List<Integer> candidates = new ArrayList<>(count);
		Merged merged = new Merged();
		for (int i = 0; i < count; i++) {
			int p = (this.first + i) % count;
			if (!this.template.partitionSkipped(this.parts[p])) {
				candidates.add(p);
			}
		}
		if (candidates.isEmpty()) {
			for (int i = 0; i < count; i++) {
				candidates.add((this.first + i) % count);
			}
		}
		else {
			for (int p = 0; p < count; p++) {
				if (!candidates.contains(p)) {
					merged.unsent.addAll(acks.get(p));
				}
			}
		}
		int remaining = max;
		int startLeft = Math.max(0, startNow);
		boolean firstRound = true;
		RuntimeException lastFailure = null;
		int answered = 0;
		Set<String> silent = new TreeSet<>();
		while (firstRound || (remaining > 0 && !candidates.isEmpty())) {
			List<Integer> called = new ArrayList<>();
			List<Integer> shares = new ArrayList<>();
			List<QueueKeys> keys = new ArrayList<>();
			List<List<byte[]>> args = new ArrayList<>();
			int n = candidates.size();
			for (int i = 0; i < n; i++) {
				int p = candidates.get(i);
				int share = remaining / n + ((i < remaining % n) ? 1 : 0);
				if (share == 0 && !firstRound) {
					continue;
				}
				int start = Math.min(startLeft, share);
				startLeft -= start;
				called.add(p);
				shares.add(share);
				keys.add(this.parts[p]);
				args.add(this.template.reserveArgs(share, lease, workerId, firstRound ? acks.get(p) : List.of(),
						maxAttempts, start));
			}
			QueueScriptExecutor.Each each = this.template.executor().runEach(this.template.executor().scripts().reserve(),
					keys, args);
			for (int i = 0; i < called.size(); i++) {
				int p = called.get(i);
				RuntimeException failure = each.failures()[i];
				if (failure != null) {
					lastFailure = failure;
					silent.add(this.parts[p].name());
					this.template.skipPartition(this.parts[p], SKIP);
					candidates.remove((Integer) p);
					if (firstRound) {
						merged.unsent.addAll(acks.get(p));
					}
					logger.debug("Partition {} of queue '{}' did not answer a reserve", this.parts[p].name(), this.queue,
							failure);
					continue;
				}
				answered++;
				Reservation part = this.template.reserved(this.queue, this.parts[p], ScriptReplies.reservation(this.queue,
						each.reply(i), (raw) -> this.template.headers(this.queue, raw)));
				merged.add(part);
				int got = part.jobs().size();
				remaining -= got;
				if (got < shares.get(i)) {
					candidates.remove((Integer) p);
				}
			}
			firstRound = false;
		}
		if (answered == 0 && lastFailure != null) {
			throw lastFailure;
		}
		if (this.template.partitionsSilent(this.queue, silent) && lastFailure != null) {
			logger.warn("Partitions {} of queue '{}' did not answer; the other partitions are served meanwhile: {}",
					silent, this.queue, lastFailure.toString());
		}
		return merged.reservation();
	}

	/** The replies of the partitions, merged into one reservation. */
	private static final class Merged {

		final List<ReservedJob> jobs = new ArrayList<>();

		final List<JobRef> unsent = new ArrayList<>();

		@Nullable Instant nextDue;

		int reclaimed;

		int expired;

		int refused;

		int missing;

		Instant serverTime = Instant.EPOCH;

		void add(Reservation part) {
			this.jobs.addAll(part.jobs());
			if (part.nextDue() != null && (this.nextDue == null || part.nextDue().isBefore(this.nextDue))) {
				this.nextDue = part.nextDue();
			}
			this.reclaimed += part.reclaimed();
			this.expired += part.expired();
			this.refused += part.refusedCompletions();
			this.missing += part.missingCompletions();
			if (part.serverTime().isAfter(this.serverTime)) {
				this.serverTime = part.serverTime();
			}
		}

		Reservation reservation() {
			return new Reservation(List.copyOf(this.jobs), this.nextDue, this.reclaimed, this.expired, this.refused,
					this.missing, this.serverTime, List.copyOf(this.unsent));
		}

	}

}
