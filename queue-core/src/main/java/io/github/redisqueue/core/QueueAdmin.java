package io.github.redisqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.core.RedisCallback;

import static io.github.redisqueue.core.ScriptReplies.EMPTY;
import static io.github.redisqueue.core.ScriptReplies.encodeAscii;
import static io.github.redisqueue.core.ScriptReplies.encodeNumber;
import static io.github.redisqueue.core.ScriptReplies.encodeUtf8;
import static io.github.redisqueue.core.ScriptReplies.text;

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
 * </pre>
 *
 * @since 0.1.0
 */
public class QueueAdmin implements QueueAdminOperations {

	/** Most dead letters one {@link #deadLetters page} may hold. */
	public static final int MAX_DEAD_LETTER_PAGE = 10_000;

	/** Most batches one {@link #batches page} may hold. */
	public static final int MAX_BATCH_PAGE = 100;

	private static final Logger logger = LoggerFactory.getLogger(QueueAdmin.class);

	private static final byte[] INSPECT_DEAD_LETTERS = encodeAscii("dead");

	private static final byte[] DEAD_RETRY = encodeAscii("retry");

	private static final byte[] DEAD_PURGE = encodeAscii("purge");

	private static final byte[] ANY_TIME = encodeAscii("+inf");

	private final QueueTemplate template;

	private final QueueScriptExecutor executor;

	private final QueueSettings settings;

	private final WorkerRegistry workers;

	/** Queues whose counts {@link #overview()} fetches in its first round trip. */
	private final Set<String> overviewQueues = new ConcurrentSkipListSet<>();

	/**
	 * Administration of the queues of a template.
	 * @param template the template
	 */
	public QueueAdmin(QueueTemplate template) {
		this.template = template;
		this.executor = template.executor();
		this.settings = template.getSettings();
		this.workers = new WorkerRegistry(this.executor, this.settings.keyPrefix(), template::keys);
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
		return ScriptReplies.counts(queue,
				this.executor.run(this.executor.scripts().inspect(), this.template.keys(queue), List.of(EMPTY)));
	}

	@Override
	public Map<String, QueueCounts> counts(Collection<String> queues) {
		List<String> names = List.copyOf(queues);
		List<QueueScriptExecutor.Command> commands = new ArrayList<>(names.size());
		names.forEach((name) -> commands.add(inspectCall(name)));
		if (names.isEmpty()) {
			return Map.of();
		}
		List<Object> replies = this.executor.pipelined(commands);
		Map<String, QueueCounts> counts = new LinkedHashMap<>();
		for (int i = 0; i < names.size(); i++) {
			counts.put(names.get(i), ScriptReplies.counts(names.get(i), list(replies.get(i))));
		}
		return counts;
	}

	@Override
	public QueueOverview overview() {
		List<String> known = List.copyOf(this.overviewQueues);
		List<QueueScriptExecutor.Command> commands = new ArrayList<>(known.size() + 2);
		commands.add(new QueueScriptExecutor.SetMembers(registryKey()));
		commands.add(this.workers.workersCall());
		known.forEach((name) -> commands.add(inspectCall(name)));
		List<Object> replies = this.executor.pipelined(commands);
		Set<String> names = new TreeSet<>();
		if (replies.get(0) instanceof Collection<?> members) {
			members.forEach((member) -> names.add(text(member)));
		}
		List<WorkerInfo> workers = ScriptReplies.workers(list(replies.get(1)));
		Map<String, QueueCounts> counts = new TreeMap<>();
		for (int i = 0; i < known.size(); i++) {
			if (names.contains(known.get(i))) {
				counts.put(known.get(i), ScriptReplies.counts(known.get(i), list(replies.get(i + 2))));
			}
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
	public Optional<JobInfo> job(String queue, String id) {
		List<Object> reply = this.executor.run(this.executor.scripts().inspect(), this.template.keys(queue),
				List.of(encodeAscii("job"), encodeUtf8(id)));
		Map<byte[], byte[]> fields = new LinkedHashMap<>();
		for (int at = 0; at + 1 < reply.size(); at += 2) {
			fields.put(ScriptReplies.bytes(reply.get(at)), ScriptReplies.bytes(reply.get(at + 1)));
		}
		return ScriptReplies.job(queue, id, fields, (raw) -> this.template.headers(queue, raw));
	}

	@Override
	public List<DeadJob> deadLetters(String queue, int offset, int count) {
		if (offset < 0 || count < 1 || count > MAX_DEAD_LETTER_PAGE) {
			throw new IllegalArgumentException("Dead-letter page (offset " + offset + ", count " + count
					+ ") is invalid: offset must be 0 or more and count from 1 to " + MAX_DEAD_LETTER_PAGE);
		}
		List<Object> reply = this.executor.run(this.executor.scripts().inspect(), this.template.keys(queue),
				List.of(INSPECT_DEAD_LETTERS, encodeNumber(offset), encodeNumber(count)));
		return ScriptReplies.deadLetters(reply, (raw) -> this.template.headers(queue, raw));
	}

	@Override
	public List<BatchStatus> batches(String queue, int offset, int count) {
		if (offset < 0 || count < 1 || count > MAX_BATCH_PAGE) {
			throw new IllegalArgumentException("Batch page (offset " + offset + ", count " + count
					+ ") is invalid: offset must be 0 or more and count from 1 to " + MAX_BATCH_PAGE);
		}
		return ScriptReplies.batchList(queue,
				this.template.batches().run(queue, "list", "", encodeNumber(offset), encodeNumber(count)));
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
		return ScriptReplies.deadOp(this.executor.run(this.executor.scripts().dead(), this.template.keys(queue),
				List.of(op, encodeNumber(1), ANY_TIME, encodeUtf8(id)))).touched();
	}

	/**
	 * Touches every job dead when the call began, each once: after the first step only jobs that
	 * died by the time of that step are taken, so jobs that die again later (and jobs whose retry
	 * was refused, which are stamped a millisecond after the refusal) are left for a later call.
	 */
	private long deadOpAll(String queue, byte[] op) {
		QueueKeys k = this.template.keys(queue);
		int batch = this.settings.reapBatch();
		long total = 0;
		byte[] before = ANY_TIME;
		while (true) {
			ScriptReplies.DeadOpReply reply = ScriptReplies
				.deadOp(this.executor.run(this.executor.scripts().dead(), k, List.of(op, encodeNumber(batch), before)));
			total += reply.touched();
			if (reply.touched() + reply.refused() < batch) {
				return total;
			}
			if (before == ANY_TIME) {
				before = encodeNumber(reply.serverTime());
			}
		}
	}

	@Override
	public boolean pause(String queue) {
		QueueKeys k = this.template.keys(queue);
		return Boolean.TRUE.equals(this.executor.redis().opsForValue().setIfAbsent(k.paused(), encodeAscii("1")));
	}

	@Override
	public boolean resume(String queue) {
		QueueKeys k = this.template.keys(queue);
		if (!Boolean.TRUE.equals(this.executor.redis().delete(k.paused()))) {
			return false;
		}
		// one wake-up for blocked consumers; the scripts keep at most a few pending
		Long pending = this.executor.redis().opsForList().size(k.wake());
		if (pending == null || pending < 8) {
			this.executor.redis().opsForList().rightPush(k.wake(), encodeAscii("1"));
		}
		return true;
	}

	@Override
	public ReapResult reapOnce(String queue) {
		List<byte[]> args = List.of(encodeNumber(this.settings.reapBatch()),
				encodeNumber(this.settings.completedRetention().toMillis()),
				encodeNumber(this.settings.deadRetention().toMillis()));
		List<Object> reply = this.executor.run(this.executor.scripts().reap(), this.template.keys(queue), args);
		ReapResult result = ScriptReplies.reapResult(reply);
		if (ScriptReplies.asLong(reply.get(ScriptReplies.REAP_BATCHES_DONE)) > 0) {
			this.template.forwardBatchCompletions(queue);
		}
		if (result.abandoned() > 0) {
			logger.info("Took back {} jobs of queue '{}' held by workers whose heartbeat ran out", result.abandoned(),
					queue);
		}
		this.template.record(queue, JobOutcome.REAPED, result.reclaimed() + result.abandoned());
		this.template.record(queue, JobOutcome.EXPIRED, result.expired());
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

	private QueueScriptExecutor.ScriptCall inspectCall(String queue) {
		return QueueScriptExecutor.ScriptCall.of(this.executor.scripts().inspect(), this.template.keys(queue),
				List.of(EMPTY));
	}

	private byte[] registryKey() {
		return encodeUtf8(QueueKeys.registryKey(this.settings.keyPrefix()));
	}

	private static List<?> list(Object reply) {
		return (List<?>) reply;
	}

}
