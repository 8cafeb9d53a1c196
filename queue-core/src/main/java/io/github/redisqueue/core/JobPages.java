package io.github.redisqueue.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static io.github.redisqueue.core.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.ScriptArgs.encodeNumber;
import static io.github.redisqueue.core.ScriptReplies.text;

/**
 * Pages of the jobs of one state, read with {@code jobs.lua} 'list' (see
 * {@link QueueAdmin#jobs}): one script call for a queue of one partition. A page of a partitioned
 * queue is read in two steps, so that no call builds more jobs than the page holds: the index
 * scores of each partition's first {@code offset + count} jobs (in calls of at most
 * {@value #SCORE_SLICE}: reading them reads the plain jobs among them whole), merged here to learn
 * which run of each partition's own order the page holds, then those runs, one call per partition
 * that has jobs on the page. Equal scores of different partitions take partition order.
 */
final class JobPages {

	private static final byte[] LIST = encodeAscii("list");

	private static final byte[] ASCENDING = encodeAscii("asc");

	private static final byte[] DESCENDING = encodeAscii("desc");

	private static final byte[] SCORES = encodeAscii("scores");

	/** Most index scores one call reads for the merge of a partitioned queue's page. */
	static final int SCORE_SLICE = 1000;

	private final QueueTemplate template;

	private final QueueScriptExecutor executor;

	JobPages(QueueTemplate template) {
		this.template = template;
		this.executor = template.executor();
	}

	/**
	 * The page; the caller checked the state and the bounds.
	 * @param index the state's name in the script: ready, delayed, active or dead
	 */
	List<JobInfo> page(String queue, String index, JobOrder order, int offset, int count) {
		boolean descending = order == JobOrder.NEWEST_FIRST;
		QueueKeys[] parts = this.template.partitions(queue);
		if (parts.length == 1) {
			return list(queue, parts[0], index, descending, offset, count).stream()
				.map(ScriptReplies.ListedJob::job)
				.toList();
		}
		// the scores of each partition's first offset + count jobs, ascending
		double[][] scores = new double[parts.length][];
		for (int p = 0; p < parts.length; p++) {
			List<Object> all = new ArrayList<>();
			for (int from = 0; from < offset + count; from += SCORE_SLICE) {
				int slice = Math.min(SCORE_SLICE, offset + count - from);
				List<Object> reply = this.executor.run(this.executor.scripts().jobs(), parts[p], List.of(LIST,
						encodeAscii(index), descending ? DESCENDING : ASCENDING, encodeNumber(from), encodeNumber(slice),
						SCORES));
				all.addAll(reply);
				if (reply.size() < slice) {
					break;
				}
			}
			scores[p] = all.stream().mapToDouble((score) -> Double.parseDouble(text(score))).sorted().toArray();
		}
		int[] before = new int[parts.length];
		int[] onPage = new int[parts.length];
		split(scores, descending, offset, count, before, onPage);
		List<ScriptReplies.ListedJob> page = new ArrayList<>(count);
		for (int p = 0; p < parts.length; p++) {
			if (onPage[p] > 0) {
				page.addAll(list(queue, parts[p], index, descending, before[p], onPage[p]));
			}
		}
		// a stable sort: equal scores keep partition order, and each partition's own order
		Comparator<ScriptReplies.ListedJob> byScore = Comparator.comparingDouble(ScriptReplies.ListedJob::score);
		page.sort(descending ? byScore.reversed() : byScore);
		return page.stream().map(ScriptReplies.ListedJob::job).toList();
	}

	/**
	 * Merges the partitions' scores (each ascending) in page order, equal scores in partition
	 * order, and counts per partition its jobs before the page and on it.
	 */
	static void split(double[][] scores, boolean descending, int offset, int count, int[] before, int[] onPage) {
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

	private List<ScriptReplies.ListedJob> list(String queue, QueueKeys k, String index, boolean descending, int offset,
			int count) {
		Function<byte[], Map<String, String>> headers = (raw) -> this.template.headers(queue, raw);
		return ScriptReplies.listedJobs(queue, this.executor.run(this.executor.scripts().jobs(), k, List.of(LIST,
				encodeAscii(index), descending ? DESCENDING : ASCENDING, encodeNumber(offset), encodeNumber(count))),
				headers);
	}

}
