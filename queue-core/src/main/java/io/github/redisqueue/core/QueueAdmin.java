package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;

import io.github.redisqueue.core.batch.QueueBatches;
import io.github.redisqueue.core.engine.JobPages;
import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.engine.WorkerRegistry;
import io.github.redisqueue.core.script.InspectReplies;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueScriptExecutor;
import io.github.redisqueue.core.script.ScriptReplies;
import io.lettuce.core.cluster.SlotHash;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.github.redisqueue.core.script.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.script.ScriptArgs.encodeNumber;
import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;
import static io.github.redisqueue.core.script.ScriptReplies.EMPTY;
import static io.github.redisqueue.core.script.ScriptReplies.text;

/**
 * The Redis implementation of {@link QueueAdminOperations}, built on a {@link QueueTemplate}
 * whose connection, settings, serializer and job events it shares. Thread safe.
 *
 * <pre class="code">
 * QueueAdmin admin = new QueueAdmin(queueTemplate);
 * QueueCounts counts = admin.counts("emails");
 * admin.deadLetters("emails", 0, 20).forEach((job) -&gt; log(job.error()));
 * admin.retryAllDead("emails");
 * admin.batches("resize", 0, 20).forEach((batch) -&gt; log(batch.id() + ": " + batch.ended() + "/" + batch.total()));
 * admin.jobs("emails", JobState.READY, JobOrder.OLDEST_FIRST, 0, 50).forEach((job) -&gt; log(job.id()));
 * admin.promote("emails", delayedId);
 * </pre>
 *
 * @since 0.1.0
 */
public class QueueAdmin implements QueueAdminOperations {

	/** Most dead letters one {@link #deadLetters page} may hold. */
	public static final int MAX_DEAD_LETTER_PAGE = 10_000;

	/** Deepest end (offset plus count) of a page of dead letters or batches of a partitioned queue. */
	public static final int MAX_PARTITIONED_PAGE_END = 100_000;

	/** Most batches one {@link #batches page} may hold. */
	public static final int MAX_BATCH_PAGE = 100;

	/** Most jobs one {@link #jobs page of jobs} may hold. */
	public static final int MAX_JOB_PAGE = 500;

	/**
	 * Deepest end (offset plus count) of a {@link #jobs page of jobs}, for every queue: one page
	 * never reads more than this many entries of an index (of each partition).
	 */
	public static final int MAX_JOB_PAGE_END = 10_000;

	private static final Logger logger = LoggerFactory.getLogger(QueueAdmin.class);

	private static final byte[] BATCH_SCORES = encodeAscii("scores");

	private static final byte[] DEAD_RETRY = encodeAscii("retry");

	private static final byte[] DEAD_PURGE = encodeAscii("purge");

	private static final byte[] ANY_TIME = encodeAscii("+inf");

	private static final byte[] JOBS_DELETE = encodeAscii("delete");

	private static final byte[] JOBS_PROMOTE = encodeAscii("promote");

	private final QueueTemplate template;

	private final QueueContext context;

	private final QueueBatches batches;

	private final QueueScriptExecutor executor;

	private final QueueSettings settings;

	private final WorkerRegistry workers;

	private final JobPages jobPages;

	private final QueueLookups lookups;
	private final QueueHistories histories;

	/** Queues whose counts {@link #overview()} fetches in its first round trip. */
	private final Set<String> overviewQueues = new ConcurrentSkipListSet<>();

	/**
	 * Administration of the queues of a template.
	 * @param template the template
	 */
	public QueueAdmin(QueueTemplate template) {
		this.template = template;
		this.context = template.context();
		this.batches = template.batches();
		this.executor = this.context.executor();
		this.settings = this.context.settings();
		this.workers = new WorkerRegistry(this.executor, this.settings.keyPrefix(), this.context::partitions);
		this.jobPages = new JobPages(this.context);
		this.lookups = new QueueLookups(this.context, this.batches);
		this.histories = new QueueHistories(this.context);
	}

	/** The template this admin works on. */
	public QueueTemplate getTemplate() {
		return this.template;
	}

	@Override
	public Set<String> queues() {
		Set<byte[]> members = this.executor.redis().opsForSet().members(registryKey());
		Set<String> names = new TreeSet<>();
		if (members != null) {
			members.forEach((member) -> names.add(text(member)));
		}
		return names;
	}

	@Override
	public QueueCounts counts(String queue) {
		QueueKeys[] parts = this.context.partitions(queue);
		if (parts.length == 1) {
			return InspectReplies.counts(queue,
					this.executor.run(this.executor.scripts().inspect(), parts[0], List.of(EMPTY)));
		}
		return counts(List.of(queue)).get(queue);
	}

	@Override
	public Map<String, QueueCounts> counts(Collection<String> queues) {
		List<String> names = List.copyOf(queues);
		List<QueueScriptExecutor.Command> commands = new ArrayList<>(names.size());
		names.forEach((name) -> commands.addAll(inspectCalls(name)));
		if (names.isEmpty()) {
			return Map.of();
		}
		List<Object> replies = this.executor.pipelined(commands);
		Map<String, QueueCounts> counts = new LinkedHashMap<>();
		int at = 0;
		for (String name : names) {
			int parts = this.context.partitions(name).length;
			counts.put(name, counts(name, replies.subList(at, at + parts)));
			at += parts;
		}
		return counts;
	}

	/**
	 * The counts of each partition of a queue, by partition name ({@code queue~index}), each with
	 * the hash tag of its keys and the Redis Cluster slot they fall in; for a queue of one
	 * partition, its counts alone.
	 * @param queue the queue name
	 * @return per partition, its slot and counts, in partition order
	 */
	@Override
	public List<PartitionCounts> partitionCounts(String queue) {
		QueueKeys[] parts = this.context.partitions(queue);
		List<Object> replies = this.executor.pipelined(inspectCalls(queue));
		List<PartitionCounts> result = new ArrayList<>(parts.length);
		for (int i = 0; i < parts.length; i++) {
			String tag = parts[i].hashTag();
			result.add(new PartitionCounts(parts[i].name(), i, tag, SlotHash.getSlot(tag),
					InspectReplies.counts(queue, list(replies.get(i)))));
		}
		return result;
	}

	/** The counts of a queue from the inspect replies of its partitions, summed. */
	private static QueueCounts counts(String queue, List<Object> replies) {
		QueueCounts total = InspectReplies.counts(queue, list(replies.get(0)));
		for (int i = 1; i < replies.size(); i++) {
			total = total.plus(InspectReplies.counts(queue, list(replies.get(i))));
		}
		return total;
	}

	@Override
	public QueueOverview overview() {
		List<String> known = List.copyOf(this.overviewQueues);
		List<QueueScriptExecutor.Command> commands = new ArrayList<>(known.size() + 2);
		commands.add(new QueueScriptExecutor.SetMembers(registryKey()));
		commands.add(this.workers.workersCall());
		known.forEach((name) -> commands.addAll(inspectCalls(name)));
		List<Object> replies = this.executor.pipelined(commands);
		Set<String> names = new TreeSet<>();
		if (replies.get(0) instanceof Collection<?> members) {
			members.forEach((member) -> names.add(text(member)));
		}
		List<WorkerInfo> workers = this.workers.workers(InspectReplies.workerPage(list(replies.get(1))));
		Map<String, QueueCounts> counts = new TreeMap<>();
		int at = 2;
		for (String name : known) {
			int parts = this.context.partitions(name).length;
			if (names.contains(name)) {
				counts.put(name, counts(name, replies.subList(at, at + parts)));
			}
			at += parts;
		}
		List<String> added = names.stream().filter((name) -> !counts.containsKey(name)).toList();
		if (!added.isEmpty()) {
			// queues first seen: one more round trip, this time only
			counts.putAll(counts(added));
			this.overviewQueues.addAll(added);
		}
		return new QueueOverview(Collections.unmodifiableMap(counts), workers);
	}

	@Override
	public QueueHistory history(String queue) {
		return this.histories.read(QueueNames.validate(queue));
	}

	@Override
	public Optional<JobInfo> job(String queue, String id) {
		List<Object> reply = this.executor.run(this.executor.scripts().inspect(), this.context.partitioning().keysForJob(queue, id),
				List.of(encodeAscii("job"), encodeUtf8(id)));
		return InspectReplies.flatJob(queue, id, reply, (raw) -> this.context.headers(queue, raw));
	}

	/**
	 * A page of the jobs of one state: one script call for a queue of one partition, which reads
	 * the index entries of the page only. A page of a partitioned queue first reads the scores of
	 * each partition's first {@code offset + count} jobs (in calls of at most 1,000), then the
	 * page's jobs from the partitions that hold them (see {@link JobPages}).
	 */
	@Override
	public List<JobInfo> jobs(String queue, JobState state, JobOrder order, int offset, int count) {
		String index = switch (state) {
			case READY -> "ready";
			case DELAYED -> "delayed";
			case ACTIVE -> "active";
			case DEAD -> "dead";
			default -> throw new IllegalArgumentException("Jobs in state " + state + " cannot be listed: the states "
					+ "listed are READY, DELAYED, ACTIVE and DEAD (jobs waiting at a batch or group are in no index)");
		};
		if (offset < 0 || count < 1 || count > MAX_JOB_PAGE || (long) offset + count > MAX_JOB_PAGE_END) {
			throw new IllegalArgumentException("Job page (offset " + offset + ", count " + count + ") is invalid: "
					+ "offset must be 0 or more, count from 1 to " + MAX_JOB_PAGE + " and offset plus count at most "
					+ MAX_JOB_PAGE_END);
		}
		return this.jobPages.page(queue, index, order, offset, count);
	}

	@Override
	public boolean deleteJob(String queue, String id) {
		return delete(queue, id, List.of(JOBS_DELETE, encodeUtf8(id)));
	}

	@Override
	public boolean deleteDelayed(String queue, String id) {
		return delete(queue, id, List.of(JOBS_DELETE, encodeUtf8(id), encodeAscii("delayed")));
	}

	private boolean delete(String queue, String id, List<byte[]> args) {
		QueueKeys k = this.context.partitioning().keysForJob(queue, id);
		List<Object> reply = this.executor.run(this.executor.scripts().jobs(), k, args);
		long code = ScriptReplies.asLong(reply.get(ScriptReplies.JOBS_CODE));
		if (code == ScriptReplies.JOBS_DELETE_ACTIVE) {
			String worker = text(reply.get(ScriptReplies.JOBS_DELETE_WORKER));
			String leaseUntil = text(reply.get(ScriptReplies.JOBS_DELETE_LEASE_UNTIL));
			throw new IllegalStateException("Job " + id + " of queue '" + queue + "' is active: worker '"
					+ (worker.isEmpty() ? "unknown" : worker) + "' holds it under a lease"
					+ (leaseUntil.matches("\\d+") ? " until " + Instant.ofEpochMilli(Long.parseLong(leaseUntil)) : "")
					+ "; it can be deleted once it ends (completed, failed, dead-lettered or taken back)");
		}
		forwardFinishedBatches(queue, k, reply);
		return code == ScriptReplies.JOBS_DONE;
	}

	@Override
	public boolean promote(String queue, String id) {
		QueueKeys k = this.context.partitioning().keysForJob(queue, id);
		List<Object> reply = this.executor.run(this.executor.scripts().jobs(), k, List.of(JOBS_PROMOTE, encodeUtf8(id)));
		long code = ScriptReplies.asLong(reply.get(ScriptReplies.JOBS_CODE));
		if (code == ScriptReplies.JOBS_PROMOTE_DEAD && "expired".equals(text(reply.get(ScriptReplies.JOBS_PROMOTE_REASON)))) {
			this.context.record(queue, JobOutcome.EXPIRED, 1);
		}
		forwardFinishedBatches(queue, k, reply);
		return code == ScriptReplies.JOBS_DONE;
	}

	/** Hands off the completion jobs of batches that a job's end finished (a sub-job deleted or dead). */
	private void forwardFinishedBatches(String queue, QueueKeys k, List<Object> reply) {
		if (reply.size() > ScriptReplies.JOBS_BATCHES_DONE
				&& ScriptReplies.asLong(reply.get(ScriptReplies.JOBS_BATCHES_DONE)) > 0) {
			this.batches.forward(queue, k);
		}
	}

	@Override
	public List<DeadJob> deadLetters(String queue, int offset, int count) {
		if (offset < 0 || count < 1 || count > MAX_DEAD_LETTER_PAGE) {
			throw new IllegalArgumentException("Dead-letter page (offset " + offset + ", count " + count
					+ ") is invalid: offset must be 0 or more and count from 1 to " + MAX_DEAD_LETTER_PAGE);
		}
		if (this.context.partitions(queue).length > 1) {
			mergeDepth(offset, count);
		}
		// the dead index newest first, as a page of jobs: a partitioned queue's merged by time of death
		return this.jobPages.listed(queue, "dead", JobOrder.NEWEST_FIRST, offset, count)
			.stream()
			.map((listed) -> new DeadJob(listed.job().id(), listed.job().payload(), listed.job().headers(),
					listed.job().attempts(), (listed.job().lastError() != null) ? listed.job().lastError() : "",
					Instant.ofEpochMilli((long) listed.score())))
			.toList();
	}

	/**
	 * How many entries of each partition a page of a partitioned queue reads: the page ends at
	 * {@code offset + count} in every partition. Bounded, so that no page reads a whole partition.
	 */
	private static int mergeDepth(int offset, int count) {
		long depth = (long) offset + count;
		if (depth > MAX_PARTITIONED_PAGE_END) {
			throw new IllegalArgumentException("Page (offset " + offset + ", count " + count + ") of a partitioned "
					+ "queue is too deep: offset plus count must be at most " + MAX_PARTITIONED_PAGE_END);
		}
		return (int) depth;
	}

	@Override
	public List<BatchStatus> batches(String queue, int offset, int count) {
		if (offset < 0 || count < 1 || count > MAX_BATCH_PAGE) {
			throw new IllegalArgumentException("Batch page (offset " + offset + ", count " + count
					+ ") is invalid: offset must be 0 or more and count from 1 to " + MAX_BATCH_PAGE);
		}
		QueueKeys[] parts = this.context.partitions(queue);
		if (parts.length == 1) {
			return InspectReplies.batchList(queue,
					this.batches.run(parts[0], "list", "", encodeNumber(offset), encodeNumber(count)));
		}
		// the creation times of each partition's first offset + count, in slices, merged to learn
		// which run of each partition the page holds; then those runs only
		int depth = mergeDepth(offset, count);
		double[][] scores = new double[parts.length][];
		for (int p = 0; p < parts.length; p++) {
			List<Object> all = new ArrayList<>();
			for (int from = 0; from < depth; from += JobPages.SCORE_SLICE) {
				int slice = Math.min(JobPages.SCORE_SLICE, depth - from);
				List<Object> reply = this.batches
					.run(parts[p], "list", "", encodeNumber(from), encodeNumber(slice), BATCH_SCORES);
				all.addAll(reply);
				if (reply.size() < slice) {
					break;
				}
			}
			scores[p] = all.stream().mapToDouble((score) -> Double.parseDouble(text(score))).toArray();
		}
		int[] before = new int[parts.length];
		int[] onPage = new int[parts.length];
		JobPages.split(scores, false, offset, count, before, onPage);
		List<BatchStatus> page = new ArrayList<>(count);
		for (int p = 0; p < parts.length; p++) {
			if (onPage[p] > 0) {
				page.addAll(InspectReplies.batchList(queue, this.batches
					.run(parts[p], "list", "", encodeNumber(before[p]), encodeNumber(onPage[p]))));
			}
		}
		// a stable sort: equal times keep partition order
		page.sort(Comparator.comparing(BatchStatus::createdAt));
		return page;
	}

	@Override
	public Optional<BatchStatus> batch(String queue, String id) {
		return this.template.batchStatus(queue, id);
	}

	@Override
	public BatchStatus cancelBatch(String queue, String id) {
		return this.template.cancelBatch(queue, id);
	}

	@Override
	public List<BatchStatus> finishedBatches(String queue, int count) {
		if (count < 1 || count > MAX_BATCH_PAGE) {
			throw new IllegalArgumentException("Count " + count + " of finished batches is invalid: from 1 to "
					+ MAX_BATCH_PAGE);
		}
		return this.lookups.finishedBatches(queue, count);
	}

	@Override
	public Optional<String> jobIdByUniqueKey(String queue, String key) {
		return this.lookups.byUniqueKey(queue, key);
	}

	@Override
	public Optional<String> jobIdByIdempotencyKey(String queue, String key) {
		return this.lookups.byIdempotencyKey(queue, key);
	}

	@Override
	public Optional<JobHistory> jobHistory(String queue, String id) {
		return this.lookups.history(queue, id);
	}

	@Override
	public RateLimitStatus rateLimitStatus(String queue) {
		return this.lookups.rateLimit(queue);
	}

	@Override
	public boolean retryDead(String queue, String id) {
		return deadOp(queue, DEAD_RETRY, id) == 1;
	}

	@Override
	public long retryAllDead(String queue) {
		return deadOpAll(queue, DEAD_RETRY);
	}

	@Override
	public boolean purgeDead(String queue, String id) {
		return deadOp(queue, DEAD_PURGE, id) == 1;
	}

	@Override
	public long purgeAllDead(String queue) {
		return deadOpAll(queue, DEAD_PURGE);
	}

	private long deadOp(String queue, byte[] op, String id) {
		return InspectReplies.deadOp(this.executor.run(this.executor.scripts().dead(), this.context.partitioning().keysForJob(queue, id),
				List.of(op, encodeNumber(1), ANY_TIME, groupCap(queue), encodeUtf8(id)))).touched();
	}

	/** The cap a retried job's group gets when it has no record any more (see dead.lua). */
	private byte[] groupCap(String queue) {
		return encodeNumber(this.settings.groupConcurrency(queue));
	}

	/**
	 * Touches every job dead when the call began, each once: after the first step only jobs that
	 * died by the time of that step are taken, so jobs that die again later (and jobs whose retry
	 * was refused, which are stamped a millisecond after the refusal, and retried jobs that died
	 * again within the millisecond of their retry, stamped a millisecond after it) are left for a
	 * later call.
	 */
	private long deadOpAll(String queue, byte[] op) {
		long total = 0;
		for (QueueKeys k : this.context.partitions(queue)) {
			total += deadOpAll(k, op, groupCap(queue));
		}
		return total;
	}

	/** Most dead jobs one call of a retry-all or purge-all touches: each call stays short. */
	static final int DEAD_STEP = 50;

	private long deadOpAll(QueueKeys k, byte[] op, byte[] groupCap) {
		int batch = Math.min(this.settings.reapBatch(), DEAD_STEP);
		long total = 0;
		byte[] before = ANY_TIME;
		while (true) {
			InspectReplies.DeadOpReply reply = InspectReplies
				.deadOp(this.executor.run(this.executor.scripts().dead(), k, List.of(op, encodeNumber(batch), before, groupCap)));
			total += reply.touched();
			if (reply.touched() + reply.refused() < batch) {
				return total;
			}
			if (before == ANY_TIME) {
				before = encodeNumber(reply.serverTime());
			}
		}
	}

	/** Pauses every partition of a partitioned queue; true when one of them was running. */
	@Override
	public boolean pause(String queue) {
		boolean paused = false;
		for (QueueKeys k : this.context.partitions(queue)) {
			paused |= Boolean.TRUE.equals(this.executor.redis().opsForValue().setIfAbsent(k.paused(), encodeAscii("1")));
		}
		return paused;
	}

	/** Resumes every partition of a partitioned queue; true when one of them was paused. */
	@Override
	public boolean resume(String queue) {
		boolean resumed = false;
		for (QueueKeys k : this.context.partitions(queue)) {
			if (!Boolean.TRUE.equals(this.executor.redis().delete(k.paused()))) {
				continue;
			}
			resumed = true;
			if (k.partitionCount() > 1) {
				// consumers of a partition wait for its announcements
				this.executor.redis().convertAndSend(text(k.wakeChannel()), encodeAscii("1"));
				continue;
			}
			// one wake-up for blocked consumers; the scripts keep at most a few pending
			Long pending = this.executor.redis().opsForList().size(k.wake());
			if (pending == null || pending < 8) {
				this.executor.redis().opsForList().rightPush(k.wake(), encodeAscii("1"));
			}
		}
		return resumed;
	}

	@Override
	public ReapResult reapOnce(String queue) {
		ReapResult total = ReapResult.NONE;
		for (QueueKeys k : this.context.partitions(queue)) {
			total = total.plus(reapOnce(queue, k));
		}
		return total;
	}

	private ReapResult reapOnce(String queue, QueueKeys k) {
		List<byte[]> args = List.of(encodeNumber(this.settings.reapBatch()),
				encodeNumber(this.settings.completedRetention().toMillis()),
				encodeNumber(this.settings.deadRetention().toMillis()));
		List<Object> reply = this.executor.run(this.executor.scripts().reap(), k, args);
		ReapResult result = ScriptReplies.reapResult(reply);
		if (ScriptReplies.asLong(reply.get(ScriptReplies.REAP_BATCHES_DONE)) > 0) {
			this.batches.forward(queue, k);
		}
		if (result.abandoned() > 0) {
			logger.info("Took back {} jobs of queue '{}' held by workers whose heartbeat ran out", result.abandoned(),
					queue);
		}
		this.context.record(queue, JobOutcome.REAPED, result.reclaimed() + result.abandoned());
		this.context.record(queue, JobOutcome.EXPIRED, result.expired());
		return result;
	}

	@Override
	public ReapResult reapOnce() {
		ReapResult total = ReapResult.NONE;
		for (String queue : queues()) {
			try {
				total = total.plus(reapOnce(queue));
			}
			catch (IllegalArgumentException ex) {
				logger.warn("Skipping queue '{}' of the registry: {}", queue, ex.getMessage());
			}
		}
		return total;
	}

	@Override
	public void heartbeat(WorkerInfo worker, Duration timeToLive) {
		this.workers.heartbeat(worker, timeToLive);
	}

	@Override
	public void leave(WorkerInfo worker) {
		this.workers.leave(worker);
	}

	@Override
	public List<String> silentWorkers() {
		return this.workers.silentWorkers();
	}

	@Override
	public List<WorkerInfo> workers() {
		return this.workers.workers();
	}

	/** The inspect calls of every partition of a queue, in partition order. */
	private List<QueueScriptExecutor.Command> inspectCalls(String queue) {
		QueueKeys[] parts = this.context.partitions(queue);
		List<QueueScriptExecutor.Command> calls = new ArrayList<>(parts.length);
		for (QueueKeys k : parts) {
			calls.add(QueueScriptExecutor.ScriptCall.of(this.executor.scripts().inspect(), k, List.of(EMPTY)));
		}
		return calls;
	}

	private byte[] registryKey() {
		return encodeUtf8(QueueKeys.registryKey(this.settings.keyPrefix()));
	}

	private static List<?> list(Object reply) {
		return (List<?>) reply;
	}

}
