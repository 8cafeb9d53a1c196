package io.github.redisqueue.core.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.JobOrder;
import io.github.redisqueue.core.script.InspectReplies;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueScriptExecutor;
import io.github.redisqueue.core.script.ScriptReplies;

import static io.github.redisqueue.core.script.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.script.ScriptArgs.encodeNumber;
import static io.github.redisqueue.core.script.ScriptReplies.text;

/**
 * Pages of the jobs of one state, read with {@code jobs.lua} 'list' (see
 * {@code QueueAdmin.jobs} and {@code QueueAdmin.deadLetters}). A call of the script stops once
 * the payloads it read pass its byte budget and tells how many index entries it covered: a run
 * of jobs is read in as many calls as its bytes need, each going on where the last stopped. A
 * page of a partitioned queue is read in two steps, so that no call builds more jobs than the
 * page holds: the index scores of each partition's first {@code offset + count} jobs (in calls of
 * at most {@value #SCORE_SLICE}: reading them reads the plain jobs among them whole), merged here
 * to learn which run of each partition's own order the page holds, then those runs. Equal scores
 * of different partitions take partition order. Each call of a run tells how many plain jobs come
 * before where it stopped, and the next call is given that: only a run's first call looks for its
 * place among the plain jobs (a search of the list, which reads elements deep in it).
 */
public final class JobPages {

	private static final byte[] LIST = encodeAscii("list");

	private static final byte[] ASCENDING = encodeAscii("asc");

	private static final byte[] DESCENDING = encodeAscii("desc");

	private static final byte[] SCORES = encodeAscii("scores");

	private static final byte[] JOBS = encodeAscii("");

	private static final byte[] NO_PLAIN_COUNT = encodeAscii("");

	/** Most index scores one call reads for the merge of a partitioned queue's page. */
	public static final int SCORE_SLICE = 500;

	private final QueueContext context;

	private final QueueScriptExecutor executor;

	public JobPages(QueueContext context) {
		this.context = context;
		this.executor = context.executor();
	}

	/**
	 * The page; the caller checked the state and the bounds.
	 * @param index the state's name in the script: ready, delayed, active or dead
	 */
	public List<JobInfo> page(String queue, String index, JobOrder order, int offset, int count) {
		return listed(queue, index, order, offset, count).stream().map(InspectReplies.ListedJob::job).toList();
	}

	/** The page, each job with its index score. */
	public List<InspectReplies.ListedJob> listed(String queue, String index, JobOrder order, int offset, int count) {
		boolean descending = order == JobOrder.NEWEST_FIRST;
		QueueKeys[] parts = this.context.partitions(queue);
		if (parts.length == 1) {
			return list(queue, parts[0], index, descending, offset, count);
		}
		// the scores of each partition's first offset + count jobs, ascending
		double[][] scores = new double[parts.length][];
		for (int p = 0; p < parts.length; p++) {
			List<Object> all = new ArrayList<>();
			int from = 0;
			long plainBefore = 0;
			while (from < offset + count) {
				int slice = Math.min(SCORE_SLICE, offset + count - from);
				List<Object> reply = this.executor.run(this.executor.scripts().jobs(), parts[p], List.of(LIST,
						encodeAscii(index), descending ? DESCENDING : ASCENDING, encodeNumber(from), encodeNumber(slice),
						SCORES, encodeNumber(plainBefore)));
				int covered = (int) ScriptReplies.asLong(reply.get(0));
				plainBefore = ScriptReplies.asLong(reply.get(1));
				all.addAll(reply.subList(2, reply.size()));
				if (covered == 0) {
					break;
				}
				from += covered;
			}
			scores[p] = all.stream().mapToDouble((score) -> Double.parseDouble(text(score))).sorted().toArray();
		}
		int[] before = new int[parts.length];
		int[] onPage = new int[parts.length];
		split(scores, descending, offset, count, before, onPage);
		List<InspectReplies.ListedJob> page = new ArrayList<>(Math.min(count, 1000));
		for (int p = 0; p < parts.length; p++) {
			if (onPage[p] > 0) {
				page.addAll(list(queue, parts[p], index, descending, before[p], onPage[p]));
			}
		}
		// a stable sort: equal scores keep partition order, and each partition's own order
		Comparator<InspectReplies.ListedJob> byScore = Comparator.comparingDouble(InspectReplies.ListedJob::score);
		page.sort(descending ? byScore.reversed() : byScore);
		return page;
	}

	/**
	 * Merges the partitions' scores (each ascending) in page order, equal scores in partition
	 * order, and counts per partition its jobs before the page and on it.
	 */
	public static void split(double[][] scores, boolean descending, int offset, int count, int[] before, int[] onPage) {
		int[] taken = new int[scores.length];
		Arrays.fill(before, 0);
		Arrays.fill(onPage, 0);
		for (int rank = 0; rank < offset + count; rank++) {
			int best = -1;
			double bestScore = 0;
			for (int p = 0; p < scores.length; p++) {
				if (taken[p] < scores[p].length) {
					double score = scores[p][descending ? scores[p].length - 1 - taken[p] : taken[p]];
					if (best < 0 || (descending ? score > bestScore : score < bestScore)) {
						best = p;
						bestScore = score;
					}
				}
			}
			if (best < 0) {
				return;
			}
			taken[best]++;
			if (rank < offset) {
				before[best]++;
			}
			else {
				onPage[best]++;
			}
		}
	}

	/** The jobs at positions offset to offset + count - 1 of one partition, in as many calls as their bytes need. */
	private List<InspectReplies.ListedJob> list(String queue, QueueKeys k, String index, boolean descending, int offset,
			int count) {
		Function<byte[], Map<String, String>> headers = (raw) -> this.context.headers(queue, raw);
		List<InspectReplies.ListedJob> jobs = new ArrayList<>();
		int done = 0;
		// unknown for the first call ('')
		byte[] plainBefore = NO_PLAIN_COUNT;
		while (done < count) {
			List<Object> reply = this.executor.run(this.executor.scripts().jobs(), k, List.of(LIST, encodeAscii(index),
					descending ? DESCENDING : ASCENDING, encodeNumber(offset + done), encodeNumber(count - done), JOBS,
					plainBefore));
			int covered = (int) ScriptReplies.asLong(reply.get(0));
			plainBefore = encodeNumber(ScriptReplies.asLong(reply.get(1)));
			jobs.addAll(InspectReplies.listedJobs(queue, reply.subList(2, reply.size()), headers));
			if (covered == 0) {
				break;
			}
			done += covered;
		}
		return jobs;
	}

}
