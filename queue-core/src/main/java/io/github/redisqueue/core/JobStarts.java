package io.github.redisqueue.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.partition.QueuePartitions;
import io.github.redisqueue.core.reserve.JobReserver;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueScriptExecutor;
import io.github.redisqueue.core.script.ScriptArgs;
import io.github.redisqueue.core.script.ScriptReplies;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * Records that jobs reserved ahead (see {@link Reservation#reservedAhead()}) start now, together
 * with completions, in one call per partition involved (sent together). A job reserved ahead is
 * marked so in Redis, and losing it counts under a wider limit, as it most likely never ran; a
 * consumer that starts one records the start first, so that losing it from then on counts
 * against its max attempts like any running job.
 *
 * @since 0.1.0
 */
public final class JobStarts {

	private final QueueContext context;

	private final JobReserver reserver;

	/**
	 * @param template the engine
	 */
	public JobStarts(QueueTemplate template) {
		this.context = template.context();
		this.reserver = template.reserver();
	}

	/**
	 * Record the starts, then the completions.
	 * @param queue the queue name
	 * @param started jobs reserved ahead whose handlers start now
	 * @param completions jobs to complete
	 * @return per started job {@link AckResult#OK} when recorded (it is held under its token), else
	 * why not; per completion its result as {@link QueueOperations#completeAll} gives it; both
	 * {@code null} where the call of its partition failed (a partition whose master is failing
	 * over does not hold up the others: send those again, a resent completion is answered as
	 * done, a resent start is recorded again)
	 * @throws RuntimeException when no partition's call answered
	 */
	public Result startAndComplete(String queue, Collection<JobRef> started, Collection<JobRef> completions) {
		QueueKeys[] parts = this.context.partitions(queue);
		List<JobRef> starts = List.copyOf(started);
		List<JobRef> acks = List.copyOf(completions);
		List<List<Integer>> startsAt = positions(starts, parts.length);
		List<List<Integer>> acksAt = positions(acks, parts.length);
		List<Integer> called = new ArrayList<>();
		List<RedisScript<?>> calls = new ArrayList<>();
		List<QueueKeys> keys = new ArrayList<>();
		List<List<byte[]>> args = new ArrayList<>();
		byte[] retention = ScriptArgs.encodeNumber(this.context.settings().completedRetention().toMillis());
		for (int p = 0; p < parts.length; p++) {
			if (startsAt.get(p).isEmpty() && acksAt.get(p).isEmpty()) {
				continue;
			}
			called.add(p);
			calls.add(this.context.executor().scripts().complete());
			keys.add(parts[p]);
			args.add(ScriptArgs.completeArgs(retention, startsAt.get(p).stream().map(starts::get).toList(),
					acksAt.get(p).stream().map(acks::get).toList()));
		}
		QueueScriptExecutor.Each each = this.context.executor().runEach(calls, keys, args);
		List<AckResult> startResults = new ArrayList<>(Collections.nCopies(starts.size(), null));
		List<AckResult> ackResults = new ArrayList<>(Collections.nCopies(acks.size(), null));
		RuntimeException failure = null;
		int failures = 0;
		for (int i = 0; i < called.size(); i++) {
			if (each.failures()[i] != null) {
				failure = each.failures()[i];
				failures++;
				continue;
			}
			int p = called.get(i);
			List<?> raw = this.reserver.completedOn(queue, parts[p], each.reply(i));
			List<AckResult> codes = ScriptReplies.ackResults(raw);
			List<Integer> s = startsAt.get(p);
			List<Integer> a = acksAt.get(p);
			for (int j = 0; j < s.size(); j++) {
				startResults.set(s.get(j), codes.get(j));
			}
			for (int j = 0; j < a.size(); j++) {
				ackResults.set(a.get(j), codes.get(s.size() + j));
			}
			this.context.record(queue, JobOutcome.COMPLETED, ScriptReplies.acknowledged(raw.subList(s.size(), raw.size())));
		}
		if (failure != null && failures == called.size()) {
			throw failure;
		}
		return new Result(startResults, ackResults, failure);
	}

	private List<List<Integer>> positions(List<JobRef> jobs, int count) {
		List<List<Integer>> positions = new ArrayList<>(count);
		for (int p = 0; p < count; p++) {
			positions.add(new ArrayList<>());
		}
		for (int i = 0; i < jobs.size(); i++) {
			positions.get(QueuePartitions.partitionOfId(jobs.get(i).id(), count)).add(i);
		}
		return positions;
	}

	/**
	 * What one call recorded.
	 * @param starts per started job: {@link AckResult#OK} recorded, else not held under its token;
	 * {@code null} where its partition's call failed
	 * @param completions per completion, its result; {@code null} where its partition's call failed
	 * @param failure a failure of some partition's call, if any
	 */
	public record Result(List<@Nullable AckResult> starts, List<@Nullable AckResult> completions,
			@Nullable RuntimeException failure) {
	}

}
