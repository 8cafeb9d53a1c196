package io.github.redisqueue.core.reserve;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.JobIds;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobOutcome;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueOperations;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.RateLimit;
import io.github.redisqueue.core.Reservation;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.core.WaitResult;
import io.github.redisqueue.core.WorkerIds;
import io.github.redisqueue.core.batch.QueueBatches;
import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.script.HashReads;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueScriptExecutor;
import io.github.redisqueue.core.script.ScriptArgs;
import io.github.redisqueue.core.script.ScriptReplies;
import io.github.redisqueue.core.wakeup.ListWaiter;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.RedisCallback;

import static io.github.redisqueue.core.script.ScriptArgs.encodeNumber;
import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;

/**
 * The reserve path of a template: the checks of a reserve call, the reserve script on a queue of
 * one partition or a {@link PartitionedReserve} on a partitioned one, the completions sent along,
 * and the outcomes, waits and finished batches its replies report.
 */
public final class JobReserver {

	private static final Logger logger = LoggerFactory.getLogger(JobReserver.class);

	/** Shortest lease accepted. */
	public static final Duration MIN_LEASE = Duration.ofMillis(10);

	/** Longest lease accepted. */
	public static final Duration MAX_LEASE = Duration.ofDays(7);

	/** Most jobs one reserve call may take. */
	public static final int MAX_RESERVE = 10_000;

	private final QueueContext context;

	private final QueueBatches batches;

	private final HashReads hashReads;

	public JobReserver(QueueContext context, QueueBatches batches) {
		this.context = context;
		this.batches = batches;
		this.hashReads = new HashReads(context.executor());
	}

	/**
	 * Reserve jobs; see {@link QueueOperations#reserveBatch}. With {@code inTurn}, a partitioned
	 * queue is asked in turn (see {@link PartitionedReserve}).
	 */
	public Reservation reserve(String queue, int max, Duration lease, String workerId, Collection<JobRef> completions,
			int maxAttempts, int startNow, boolean inTurn) {
		QueueKeys[] parts = this.context.partitions(queue);
		checkReserve(max, lease, workerId, maxAttempts);
		JobIds.validateRefs(completions);
		Reservation reservation;
		if (parts.length == 1) {
			reservation = reserved(queue, parts[0], this.context.executor()
				.run(this.context.executor().scripts().reserve(), parts[0], reserveArgs(max, lease, workerId, completions,
						maxAttempts, startNow, this.context.settings().rateLimit(queue))), startNow);
		}
		else {
			this.context.register(parts[0]);
			reservation = new PartitionedReserve(this.context, this, queue, parts, this.context.partitioning().nextTurn(queue, parts.length), inTurn)
				.reserve(max, lease, workerId, completions, maxAttempts, startNow);
		}
		return recorded(queue, completions.size(), reservation);
	}

	/**
	 * Waits on the wake-ups of a queue of one partition, with a reserve sent right behind the wait
	 * on the waiter's own connection (see {@link QueueScriptExecutor#runAfterWait}), so that a
	 * wake-up and the jobs it announces take one round trip. With {@code onlyWoken} the reserve
	 * runs only when the wait took a wake-up; else it runs either way. The completions go in front
	 * of the wait, in the same write, by the complete script; {@code completed} takes their
	 * results as soon as they are known, before the wait is over, or {@code null} when they were
	 * not recorded (the call failed, or was not made): it is called once whenever there are
	 * completions, whatever happens. With {@code handOff}, what the reserve took is handed to it
	 * where its reply arrives, when it can be decoded there (see the form of
	 * {@link QueueTemplate#reserveAfterWait} that takes a hand-off).
	 * @return whether the wait took a wake-up, and the reservation, {@code null} when the reserve
	 * did not run; {@code null} for a waiter without a connection of its own
	 */
	public @Nullable WaitResult reserveAfterWait(String queue, ListWaiter waiter, Duration timeout, boolean onlyWoken,
			int max, Duration lease, String workerId, int maxAttempts, int startNow, Collection<JobRef> completions,
			Consumer<@Nullable List<AckResult>> completed, @Nullable ToIntFunction<Reservation> handOff) {
		boolean[] answered = {completions.isEmpty()};
		try {
			RedisClusterAsyncCommands<byte[], byte[]> connection = waiter.connection();
			if (connection == null) {
				return null;
			}
			checkReserve(max, lease, workerId, maxAttempts);
			JobIds.validateRefs(completions);
			List<byte[]> args = reserveArgs(max, lease, workerId, List.of(), maxAttempts, startNow,
					this.context.settings().rateLimit(queue));
			if (onlyWoken) {
				args.set(0, encodeUtf8("w" + max));
			}
			QueueKeys k = waiter.keys();
			QueueScriptExecutor.AheadOfWait ahead = answered[0] ? null
					: new QueueScriptExecutor.AheadOfWait(this.context.executor().scripts().complete(),
							completeArgs(completions), (reply, failure) -> {
								answered[0] = true;
								completedAhead(queue, k, reply, completed);
							});
			HandedOff early = new HandedOff();
			try {
				QueueScriptExecutor.AfterWait after = this.context.executor()
					.runAfterWait(connection, k.wake(), k.woken(), timeout, ahead, this.context.executor().scripts().reserve(),
							k, args, (handOff != null) ? (reply) -> early.handOff(this, queue, k, reply, startNow, handOff)
									: null);
				if (after.reply().isEmpty()) {
					return new WaitResult(after.woken(), null);
				}
				ScriptReplies.ReserveReply handed = early.reply;
				if (handed != null) {
					return new WaitResult(after.woken(), recorded(queue, 0, reserved(queue, k, handed)), early.count);
				}
				return new WaitResult(after.woken(), recorded(queue, 0, reserved(queue, k, after.reply(), startNow)));
			}
			catch (RuntimeException | Error ex) {
				// the reserve ran and its jobs were handed off, some or all, but the call failed after it: no caller
				// dispatches the rest, which go back at once rather than at their leases' end
				ScriptReplies.ReserveReply handed = early.reply;
				if (handed != null && early.count < handed.reservation().jobs().size()) {
					List<ReservedJob> rest = handed.reservation().jobs();
					giveBack(queue, k, rest.subList(early.count, rest.size()).stream().map(ReservedJob::ref).toList());
				}
				throw ex;
			}
		}
		finally {
			if (!answered[0]) {
				completed.accept(null);
			}
		}
	}

	/**
	 * What the hand-off of a reserve sent behind a wait did, written on the client's I/O thread where the reply
	 * arrived; read once the wait's call returned or threw (when the hand-off has run or never will).
	 */
	private static final class HandedOff {

		// the reply it decoded, null when it did not run
		volatile ScriptReplies.@Nullable ReserveReply reply;

		// how many of its jobs, the first ones, were handed off
		volatile int count;

		/**
		 * Decodes a reserve reply and hands its jobs off, unless the reserve did not run or left payloads out for
		 * their size (reading them takes a call: the waiting thread does it).
		 */
		void handOff(JobReserver reserver, String queue, QueueKeys k, List<Object> reply, int startNow,
				ToIntFunction<Reservation> handOff) {
			if (reply.isEmpty() || ScriptReplies.hasApartPayloads(reply)) {
				return;
			}
			ScriptReplies.ReserveReply parsed = reserver.parse(queue, k, reply, startNow);
			this.reply = parsed;
			try {
				this.count = handOff.applyAsInt(parsed.reservation());
			}
			catch (RuntimeException | Error ex) {
				// how many it handed off is unknown: all count as taken, so that none runs twice (one it did not
				// hand off waits for its lease's end)
				this.count = parsed.reservation().jobs().size();
				logger.warn("Handing off the jobs reserved from queue '{}' failed; those it did not take return when "
						+ "their leases run out", queue, ex);
			}
		}

	}

	/** Records completions sent ahead of a wait, tells their results, then hands off finished batches. */
	private void completedAhead(String queue, QueueKeys k, @Nullable List<Object> reply,
			Consumer<@Nullable List<AckResult>> completed) {
		List<AckResult> results = null;
		try {
			if (reply != null) {
				results = completeResults(queue, reply);
			}
		}
		finally {
			completed.accept(results);
		}
		if (results != null && ScriptReplies.completeBatchesDone(reply) > 0) {
			try {
				this.batches.forward(queue, k);
			}
			catch (RuntimeException ex) {
				// every later reserve or complete call hands them off too
				logger.debug("Could not hand off the finished batches of queue '{}'", queue, ex);
			}
		}
	}

	private void checkReserve(int max, Duration lease, String workerId, int maxAttempts) {
		if (maxAttempts < 0 || maxAttempts > JobOptions.MAX_ATTEMPTS_LIMIT) {
			throw new IllegalArgumentException("Max attempts " + maxAttempts + " is out of range: it must be from 1 to "
					+ JobOptions.MAX_ATTEMPTS_LIMIT + ", or 0 for the job's own");
		}
		if (max < 1 || max > MAX_RESERVE) {
			throw new IllegalArgumentException(
					"Reserve count " + max + " is out of range: it must be from 1 to " + MAX_RESERVE);
		}
		checkLease(lease);
		WorkerIds.validateIdentity(workerId);
	}

	private Reservation reserved(String queue, QueueKeys k, List<Object> reply, int startNow) {
		return reserved(queue, k, parse(queue, k, reply, startNow));
	}

	/**
	 * Decodes a reserve reply of partition {@code k} whose first {@code startNow} jobs started at
	 * once, reading the payloads it hands out apart (see {@link #apartPayloads}).
	 */
	public ScriptReplies.ReserveReply parse(String queue, QueueKeys k, List<Object> reply, int startNow) {
		return ScriptReplies.reservation(queue, reply, (raw) -> this.context.headers(queue, raw), startNow,
				(jobs) -> apartPayloads(queue, k, jobs));
	}

	/**
	 * Decodes the reserve replies of several partitions (each with its own {@code startNow}), the
	 * payloads they hand out apart read with one {@code HMGET} per partition, all sent together.
	 * @param ks the partitions
	 * @param replies their reserve replies, in the same order
	 * @param starts how many jobs of each started at once
	 * @return the decoded replies, in the same order
	 */
	public List<ScriptReplies.ReserveReply> parseEach(String queue, List<QueueKeys> ks, List<List<Object>> replies,
			List<Integer> starts) {
		List<Integer> reading = new ArrayList<>();
		List<byte[]> hashes = new ArrayList<>();
		List<byte[][]> fields = new ArrayList<>();
		for (int i = 0; i < replies.size(); i++) {
			List<JobRef> jobs = ScriptReplies.apartJobs(replies.get(i));
			if (!jobs.isEmpty()) {
				reading.add(i);
				hashes.add(ks.get(i).jobs());
				fields.add(payloadFields(jobs));
			}
		}
		List<HashReads.HashRead> reads = hashes.isEmpty() ? List.of()
				: this.hashReads.hmgetEach(hashes, fields);
		List<ScriptReplies.ReserveReply> parsed = new ArrayList<>(replies.size());
		for (int i = 0; i < replies.size(); i++) {
			int at = reading.indexOf(i);
			HashReads.HashRead read = (at >= 0) ? reads.get(at) : null;
			QueueKeys k = ks.get(i);
			parsed.add(ScriptReplies.reservation(queue, replies.get(i), (raw) -> this.context.headers(queue, raw),
					starts.get(i), (jobs) -> settled(queue, k, jobs, (read != null) ? read.values() : null,
							(read != null) ? read.failure() : null)));
		}
		return parsed;
	}

	/**
	 * The payloads that a reserve handed out by their length (over 4 KB, kept out of the scripts):
	 * one {@code HMGET} of their fields (see {@link #settled}).
	 */
	private List<byte @Nullable []> apartPayloads(String queue, QueueKeys k, List<JobRef> jobs) {
		byte[][] fields = payloadFields(jobs);
		List<byte @Nullable []> payloads = null;
		RuntimeException failure = null;
		try {
			payloads = this.context.executor()
				.redis()
				.execute((RedisCallback<List<byte[]>>) (connection) -> connection.hashCommands().hMGet(k.jobs(), fields));
		}
		catch (RuntimeException ex) {
			failure = ex;
		}
		return settled(queue, k, jobs, payloads, failure);
	}

	private static byte[][] payloadFields(List<JobRef> jobs) {
		byte[][] fields = new byte[jobs.size()][];
		for (int i = 0; i < fields.length; i++) {
			fields[i] = encodeUtf8(jobs.get(i).id() + ":p");
		}
		return fields;
	}

	/**
	 * The payloads read for jobs handed out by their length. A job whose payload is not there
	 * (deleted or finished since, or the read reached a replica behind its master) or could not be
	 * read (the read failed) is given back, unstarted, so that nothing is counted against it, and is
	 * {@code null} here; the give-back leaves a job that is no longer this call's as it is.
	 */
	private List<byte @Nullable []> settled(String queue, QueueKeys k, List<JobRef> jobs,
			@Nullable List<byte @Nullable []> read, @Nullable RuntimeException failure) {
		List<byte @Nullable []> payloads = read;
		if (failure != null) {
			logger.warn("Could not read the payloads of {} jobs reserved from queue '{}'; giving them back", jobs.size(),
					k.name(), failure);
		}
		if (payloads == null || payloads.size() != jobs.size()) {
			payloads = Collections.nCopies(jobs.size(), null);
		}
		List<JobRef> unread = new ArrayList<>();
		for (int i = 0; i < jobs.size(); i++) {
			if (payloads.get(i) == null) {
				unread.add(jobs.get(i));
			}
		}
		if (!unread.isEmpty()) {
			giveBack(queue, k, unread);
		}
		return payloads;
	}

	/** Releases jobs of this call unstarted; a failure leaves them to their leases' end. */
	private void giveBack(String queue, QueueKeys k, List<JobRef> jobs) {
		try {
			this.context.executor().run(this.context.executor().scripts().release(), k, ScriptArgs.releaseArgs(false, jobs));
		}
		catch (RuntimeException ex) {
			logger.warn("Could not give back {} jobs of queue '{}' whose payload was not read; they return when their"
					+ " leases run out", jobs.size(), queue, ex);
		}
	}

	private Reservation recorded(String queue, int completions, Reservation reservation) {
		this.context.record(queue, JobOutcome.COMPLETED, completions - reservation.refusedCompletions()
				- reservation.missingCompletions() - reservation.unsentCompletions().size());
		this.context.record(queue, JobOutcome.REAPED, reservation.reclaimed());
		this.context.record(queue, JobOutcome.EXPIRED, reservation.expired());
		if (reservation.rateLimitedUntil() != null) {
			this.context.events().rateLimited(queue);
		}
		return reservation;
	}

	/** The arguments of one reserve call; {@code rateLimit} {@code null} for none. */
	public List<byte[]> reserveArgs(int max, Duration lease, String workerId, Collection<JobRef> completions,
			int maxAttempts, int startNow, @Nullable RateLimit rateLimit) {
		List<byte[]> args = new ArrayList<>(9 + completions.size() * 2);
		Collections.addAll(args, encodeNumber(max), encodeNumber(lease.toMillis()), encodeUtf8(workerId),
				encodeNumber(this.context.settings().reclaimBatch()), encodeNumber(this.context.settings().reapBatch()),
				encodeNumber(this.context.settings().completedRetention().toMillis()), encodeNumber(maxAttempts),
				encodeNumber(Math.max(0, startNow)),
				(rateLimit != null) ? encodeUtf8(rateLimit.scriptArgument()) : ScriptReplies.EMPTY);
		ScriptArgs.addRefs(args, completions);
		return args;
	}

	/** The arguments of one call of the complete script. */
	public List<byte[]> completeArgs(Collection<JobRef> jobs) {
		return ScriptArgs.completeArgs(encodeNumber(this.context.settings().completedRetention().toMillis()), List.of(), jobs);
	}

	/**
	 * Records the acknowledgements of a call of the complete script.
	 * @return each job's result, in the order of the call
	 */
	public List<AckResult> completeResults(String queue, List<Object> reply) {
		List<?> codes = ScriptReplies.completeCodes(reply);
		this.context.record(queue, JobOutcome.COMPLETED, ScriptReplies.acknowledged(codes));
		return ScriptReplies.ackResults(codes);
	}

	/**
	 * Records a partition's complete call made along with a reserve and hands off its finished
	 * batches.
	 * @return the per-job codes of the reply
	 */
	public List<?> completedOn(String queue, QueueKeys k, List<Object> reply) {
		if (ScriptReplies.completeBatchesDone(reply) > 0) {
			this.batches.forward(queue, k);
		}
		return ScriptReplies.completeCodes(reply);
	}

	/** Reports the waits of a partition's reserve and hands off its finished batches. */
	public Reservation reserved(String queue, QueueKeys k, ScriptReplies.ReserveReply reply) {
		reply.waits().forEach((wait) -> this.context.waited(queue, wait));
		if (reply.batchesDone() > 0) {
			this.batches.forward(queue, k);
		}
		return reply.reservation();
	}

	/** Refuses a lease out of range. */
	public static void checkLease(Duration lease) {
		if (lease.compareTo(MIN_LEASE) < 0 || lease.compareTo(MAX_LEASE) > 0) {
			throw new IllegalArgumentException(
					"Lease " + lease + " is out of range: it must be from " + MIN_LEASE + " to " + MAX_LEASE);
		}
	}

}
