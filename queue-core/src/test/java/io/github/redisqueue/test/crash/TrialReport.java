package io.github.redisqueue.test.crash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

import io.github.redisqueue.core.QueueCounts;
import io.github.redisqueue.test.crash.TrialEvents.EnqueueCall;
import io.github.redisqueue.test.crash.TrialEvents.Fault;
import io.github.redisqueue.test.crash.TrialEvents.Incarnation;
import io.github.redisqueue.test.crash.TrialEvents.WorkerStop;

/**
 * The verdict of a crash trial: what was lost, stuck or dead, and every duplicate with its cause.
 *
 * <p>What it decides from: each worker process appends to its own journal a line
 * {@code S <time> <job id> <key> <attempt>} before the handler's body and {@code D ...} after it
 * ({@link Journal}: one {@code write} call per line, so a line written survives a SIGKILL of
 * the process); after each SIGKILL, once the process is gone and before it is started again, the
 * trial reads from Redis the jobs in flight under that worker's lease identity
 * ({@link TrialEvents.WorkerStop#held()}).
 *
 * <p>A duplicate is a handler run more than the one a job needs: every run of a job but its last.
 * Each must have been cut short by a worker's SIGKILL: its process was SIGKILLed later (every line
 * of a journal precedes the death of its process) and the job was among those Redis still had in
 * flight under that worker's identity once the process was gone. Then the run is:
 * <ul>
 * <li>{@value #KILLED_RUNNING}: its journal has no {@code D} line for it, so the handler was
 * running at the SIGKILL; at-least-once delivery cannot avoid this one;</li>
 * <li>{@value #KILLED_BEFORE_ACK} ("cut off"): its {@code D} line is there, so the handler had
 * ended, but its acknowledgement had not reached Redis (queued in the process, or on the wire).</li>
 * </ul>
 * Nothing else is accepted, in particular no duplicate around a Redis SIGKILL: with
 * {@code appendfsync always} a reply leaves the server only after its write is on disk, so a
 * completion Redis answered survives the restart; one it did not answer is sent again by the
 * worker until it is answered; and a lease that ran out while Redis was away is held until its
 * worker had as long as the outage to extend it. A graceful stop (SIGTERM), a
 * {@code SCRIPT FLUSH} or a {@code CLIENT KILL} explains none either. Duplicates are counted per
 * worker SIGKILL (those it explains) and around Redis SIGKILLs (unexplained ones whose two runs
 * straddle a Redis SIGKILL).
 *
 * <p>Separately, a producer's call may create more jobs than it asked for: {@value #RESENT_ENQUEUE}
 * (the client, Lettuce, re-sends a command whose connection was cut before the reply arrived, so
 * the enqueue script may run twice; only a call without an idempotency key can create a second
 * job that way). It is accepted only for a call that was under way while a fault cut the
 * connections.
 */
public final class TrialReport {

	/** A worker SIGKILLed in the middle of the handler. */
	public static final String KILLED_RUNNING = "worker SIGKILLed while the handler ran";

	/** A worker SIGKILLed after the handler finished, before Redis had the completion. */
	public static final String KILLED_BEFORE_ACK = "worker SIGKILLed after the handler, before Redis had its completion";

	/** One enqueue call, two jobs. */
	public static final String RESENT_ENQUEUE = "second job from an enqueue re-sent after its connection was cut";

	private static final long SLACK_MS = 50;

	private final String summary;

	private final String details;

	private final long lost;

	private final long stuck;

	private final long dead;

	private final int duplicates;

	private final Map<String, Integer> explained;

	private final List<String> unexplained;

	private final List<String> unhandled;

	private final int workerKills;

	private final int redisKills;

	private final int aroundRedisKills;

	private TrialReport(Builder b) {
		this.lost = b.lost;
		this.stuck = b.stuck;
		this.dead = b.dead;
		this.duplicates = b.duplicates;
		this.explained = b.explained;
		this.unexplained = b.unexplained;
		this.unhandled = b.unhandled;
		this.workerKills = b.workerKills;
		this.redisKills = b.redisKills;
		this.aroundRedisKills = b.aroundRedisKills;
		this.summary = b.summary();
		this.details = b.details();
	}

	/**
	 * Judge a trial.
	 * @param jobs how many jobs the producer enqueued
	 * @param workers how many worker processes ran at once
	 * @param lease the lease of each job
	 * @param incarnations every worker process started
	 * @param stops every worker process the trial stopped
	 * @param faults every fault injected
	 * @param calls every enqueue call
	 * @param counts the queue's counts once it drained
	 * @param stateOf state of a job in Redis ({@code ready}, {@code active}, {@code dead}, ...) or
	 * {@code gone}
	 * @return the report
	 */
	public static TrialReport analyse(int jobs, int workers, Duration lease, List<Incarnation> incarnations,
			List<WorkerStop> stops, List<Fault> faults, List<EnqueueCall> calls, QueueCounts counts,
			Function<String, String> stateOf) {
		Builder b = new Builder(jobs, workers, lease, faults, stops);
		b.read(incarnations);
		b.judge(calls, counts, stateOf);
		return new TrialReport(b);
	}

	/** The one-line summary. */
	public String summary() {
		return this.summary;
	}

	/** The summary, the figures behind it, the faults, and every unexplained duplicate or lost job. */
	public String details() {
		return this.details;
	}

	public long lost() {
		return this.lost;
	}

	public long stuck() {
		return this.stuck;
	}

	public long dead() {
		return this.dead;
	}

	/** Handler runs beyond one per job, plus jobs beyond one per enqueued key. */
	public int duplicates() {
		return this.duplicates;
	}

	/** Explained duplicates by cause. */
	public Map<String, Integer> explained() {
		return this.explained;
	}

	/** The duplicates no accepted cause explains, one line each. */
	public List<String> unexplained() {
		return this.unexplained;
	}

	/** Enqueued jobs whose handler never finished, with their state in Redis. */
	public List<String> unhandled() {
		return this.unhandled;
	}

	public int workerKills() {
		return this.workerKills;
	}

	public int redisKills() {
		return this.redisKills;
	}

	/** Duplicates whose two runs straddle a Redis SIGKILL and that no worker SIGKILL explains. */
	public int aroundRedisKills() {
		return this.aroundRedisKills;
	}

	/** Duplicates explained by worker SIGKILLs: running at the kill, or cut off before the acknowledgement. */
	public int atWorkerKills() {
		return this.explained.get(KILLED_RUNNING) + this.explained.get(KILLED_BEFORE_ACK);
	}

	@Override
	public String toString() {
		return this.summary;
	}

	private static final class Run {

		final Incarnation incarnation;

		final String id;

		final String key;

		final int attempt;

		final long startAt;

		long doneAt = -1;

		Run(Incarnation incarnation, String id, String key, int attempt, long startAt) {
			this.incarnation = incarnation;
			this.id = id;
			this.key = key;
			this.attempt = attempt;
			this.startAt = startAt;
		}

		String describe() {
			return "worker " + this.incarnation.worker() + " start " + this.incarnation.number() + " (pid "
					+ this.incarnation.pid() + ") at " + this.startAt + ", attempt " + this.attempt
					+ ((this.doneAt >= 0) ? ", finished" : ", not finished");
		}

	}

	private static final class Builder {

		final int jobs;

		final int workers;

		final Duration lease;

		final List<Fault> faults;

		final List<WorkerStop> stops;

		final Map<String, List<Run>> runsById = new HashMap<>();

		final Map<String, Set<String>> idsByKey = new HashMap<>();

		final Map<String, Set<String>> startedByIncarnation = new HashMap<>();

		final List<String> anomalies = new ArrayList<>();

		final Map<String, Integer> explained = new LinkedHashMap<>();

		final List<String> unexplained = new ArrayList<>();

		final List<String> unhandled = new ArrayList<>();

		final List<String> leftAfterTerm = new ArrayList<>();

		final Map<Integer, Integer> firstAttempts = new TreeMap<>();

		int firstRunLateAfterKill;

		int prefetchedAtKills;

		int heldAtKills;

		int heldAfterTerm;

		int ambiguousKeys;

		int ambiguousShownUp;

		int failedCalls;

		int bulkCalls;

		int singleCalls;

		int duplicates;

		long lost;

		long stuck;

		long dead;

		int workerKills;

		int workerTerms;

		int redisKills;

		int aroundRedisKills;

		final Map<String, int[]> perKill = new LinkedHashMap<>();

		int scriptFlushes;

		int clientKills;

		int runs;

		Builder(int jobs, int workers, Duration lease, List<Fault> faults, List<WorkerStop> stops) {
			this.jobs = jobs;
			this.workers = workers;
			this.lease = lease;
			this.faults = faults;
			this.stops = stops;
			this.explained.put(KILLED_RUNNING, 0);
			this.explained.put(KILLED_BEFORE_ACK, 0);
			this.explained.put(RESENT_ENQUEUE, 0);
			for (Fault fault : faults) {
				switch (fault.kind()) {
					case TrialEvents.WORKER_KILL -> this.workerKills++;
					case TrialEvents.WORKER_TERM -> this.workerTerms++;
					case TrialEvents.REDIS_KILL -> this.redisKills++;
					case TrialEvents.SCRIPT_FLUSH -> this.scriptFlushes++;
					case TrialEvents.CLIENT_KILL -> this.clientKills++;
					default -> {
					}
				}
			}
		}

		void read(List<Incarnation> incarnations) {
			for (Incarnation incarnation : incarnations) {
				Map<String, Deque<Run>> open = new HashMap<>();
				Set<String> started = new HashSet<>();
				List<String> lines;
				try {
					lines = Files.exists(incarnation.journal())
							? Files.readAllLines(incarnation.journal(), StandardCharsets.US_ASCII) : List.of();
				}
				catch (IOException ex) {
					throw new UncheckedIOException(ex);
				}
				for (String line : lines) {
					String[] f = line.split(" ");
					if (f.length != 5) {
						this.anomalies.add("journal " + incarnation.journal() + ": unreadable line '" + line + "'");
						continue;
					}
					long at = Long.parseLong(f[1]);
					String id = f[2];
					if (f[0].equals(Journal.STARTED)) {
						Run run = new Run(incarnation, id, f[3], Integer.parseInt(f[4]), at);
						open.computeIfAbsent(id, (k) -> new ArrayDeque<>()).add(run);
						this.runsById.computeIfAbsent(id, (k) -> new ArrayList<>()).add(run);
						this.idsByKey.computeIfAbsent(f[3], (k) -> new LinkedHashSet<>()).add(id);
						started.add(id);
						this.runs++;
					}
					else {
						Deque<Run> runs = open.get(id);
						Run run = (runs != null) ? runs.poll() : null;
						if (run == null) {
							this.anomalies.add("journal " + incarnation.journal() + ": job " + id + " done but never started");
						}
						else {
							run.doneAt = at;
						}
					}
				}
				this.startedByIncarnation.put(incarnation.worker() + "/" + incarnation.number(), started);
			}
			this.runsById.values().forEach((runs) -> runs.sort(Comparator.comparingLong((Run r) -> r.startAt)));
		}

		void judge(List<EnqueueCall> calls, QueueCounts counts, Function<String, String> stateOf) {
			Map<String, String> confirmed = new HashMap<>();
			Map<String, List<EnqueueCall>> callsByKey = new HashMap<>();
			for (EnqueueCall call : calls) {
				if (call.bulk()) {
					this.bulkCalls++;
				}
				else {
					this.singleCalls++;
				}
				if (call.ids() == null) {
					this.failedCalls++;
				}
				for (int i = 0; i < call.keys().size(); i++) {
					String key = call.keys().get(i);
					callsByKey.computeIfAbsent(key, (k) -> new ArrayList<>()).add(call);
					if (call.ids() != null) {
						confirmed.put(key, call.ids().get(i));
						this.idsByKey.computeIfAbsent(key, (k) -> new LinkedHashSet<>()).add(call.ids().get(i));
					}
				}
			}
			// lost: a job the producer was told exists, never handled to the end, and gone from Redis
			for (Map.Entry<String, String> entry : confirmed.entrySet()) {
				checkHandled(entry.getValue(), entry.getKey(), stateOf);
			}
			// an enqueue that failed may or may not have created its jobs; a job that shows up counts
			for (Map.Entry<String, List<EnqueueCall>> entry : callsByKey.entrySet()) {
				if (!confirmed.containsKey(entry.getKey())) {
					this.ambiguousKeys++;
					Set<String> ids = this.idsByKey.getOrDefault(entry.getKey(), Set.of());
					if (!ids.isEmpty()) {
						this.ambiguousShownUp++;
					}
					for (String id : ids) {
						checkHandled(id, entry.getKey(), stateOf);
					}
				}
			}
			this.stuck = counts.pending();
			this.dead = counts.dead();
			explainRuns();
			explainExtraJobs(callsByKey);
			figures();
		}

		private void checkHandled(String id, String key, Function<String, String> stateOf) {
			List<Run> runs = this.runsById.getOrDefault(id, List.of());
			if (runs.stream().anyMatch((run) -> run.doneAt >= 0)) {
				return;
			}
			String state = stateOf.apply(id);
			if (state.equals("gone") || state.equals("completed")) {
				this.lost++;
			}
			this.unhandled.add("job " + id + " (" + key + "): " + runs.size() + " unfinished runs, state " + state);
		}

		private void explainRuns() {
			Map<String, WorkerStop> stopByIncarnation = new HashMap<>();
			for (WorkerStop stop : this.stops) {
				stopByIncarnation.put(stop.worker() + "/" + stop.incarnation(), stop);
			}
			for (Map.Entry<String, List<Run>> entry : this.runsById.entrySet()) {
				List<Run> runs = entry.getValue();
				for (int i = 0; i < runs.size() - 1; i++) {
					Run run = runs.get(i);
					this.duplicates++;
					WorkerStop stop = stopByIncarnation.get(run.incarnation.worker() + "/" + run.incarnation.number());
					// every run in an incarnation's journal happened before that process died
					if (stop != null && stop.killed() && stop.held().contains(run.id)) {
						boolean cutOff = run.doneAt >= 0;
						this.explained.merge(cutOff ? KILLED_BEFORE_ACK : KILLED_RUNNING, 1, Integer::sum);
						this.perKill.computeIfAbsent(stop.worker() + "/" + stop.incarnation(), (k) -> new int[2])[cutOff ? 1
								: 0]++;
					}
					else {
						if (redisKillBetween(run.startAt, runs.get(i + 1).startAt)) {
							this.aroundRedisKills++;
						}
						String why = (stop == null) ? "its worker process was not stopped"
								: (stop.killed() ? "its worker was SIGKILLed at " + stop.at()
										+ " but Redis had not left the job under its lease"
										: "its worker was stopped gracefully (SIGTERM) at " + stop.at());
						this.unexplained.add("job " + run.id + " (" + run.key + ") ran again after a run in "
								+ run.describe() + "; " + why + "; faults around that run: "
								+ faultsAround(run.startAt, runs.get(i + 1).startAt) + "; next run: "
								+ runs.get(i + 1).describe());
					}
				}
			}
		}

		private void explainExtraJobs(Map<String, List<EnqueueCall>> callsByKey) {
			for (Map.Entry<String, Set<String>> entry : this.idsByKey.entrySet()) {
				int extra = entry.getValue().size() - 1;
				if (extra <= 0) {
					continue;
				}
				this.duplicates += extra;
				List<EnqueueCall> keyCalls = callsByKey.getOrDefault(entry.getKey(), List.of());
				boolean cut = keyCalls.stream()
					.anyMatch((call) -> !call.idempotent() && this.faults.stream()
						.anyMatch((fault) -> fault.cutsConnections()
								&& fault.overlaps(call.start() - SLACK_MS, call.end() + SLACK_MS)));
				if (cut) {
					this.explained.merge(RESENT_ENQUEUE, extra, Integer::sum);
				}
				else {
					this.unexplained.add("key " + entry.getKey() + " became " + entry.getValue().size() + " jobs "
							+ entry.getValue() + " from " + keyCalls.size() + " enqueue calls, none cut by a fault");
				}
			}
		}

		/** Whether a Redis SIGKILL (until Redis answered again) overlaps the time between two runs. */
		private boolean redisKillBetween(long from, long to) {
			return this.faults.stream()
				.anyMatch((fault) -> fault.kind().equals(TrialEvents.REDIS_KILL) && fault.overlaps(from, to));
		}

		private String faultsAround(long from, long to) {
			List<String> around = new ArrayList<>();
			for (Fault fault : this.faults) {
				if (fault.overlaps(from - 1000, to)) {
					around.add(fault.kind() + " " + fault.start() + ".." + fault.end() + " (" + fault.detail() + ")");
				}
			}
			return around.isEmpty() ? "none" : String.join(", ", around);
		}

		private void figures() {
			for (WorkerStop stop : this.stops) {
				Set<String> started = this.startedByIncarnation.getOrDefault(stop.worker() + "/" + stop.incarnation(),
						Set.of());
				if (stop.killed()) {
					this.heldAtKills += stop.held().size();
					this.prefetchedAtKills += (int) stop.held().stream().filter((id) -> !started.contains(id)).count();
				}
				else {
					this.heldAfterTerm += stop.held().size();
					for (String id : stop.held()) {
						List<Run> runs = this.runsById.getOrDefault(id, List.of());
						this.leftAfterTerm.add("job " + id + " after SIGTERM of worker " + stop.worker() + " start "
								+ stop.incarnation() + " (pid " + stop.pid() + "): "
								+ (started.contains(id) ? "it ran there" : "it had not started there") + "; runs: "
								+ runs.stream().map(Run::describe).toList());
					}
				}
			}
			Set<String> heldAtSomeKill = new HashSet<>();
			this.stops.stream().filter(WorkerStop::killed).forEach((stop) -> heldAtSomeKill.addAll(stop.held()));
			for (Map.Entry<String, List<Run>> entry : this.runsById.entrySet()) {
				int attempt = entry.getValue().get(0).attempt;
				this.firstAttempts.merge(attempt, 1, Integer::sum);
				if (attempt > 1 && heldAtSomeKill.contains(entry.getKey())) {
					this.firstRunLateAfterKill++;
				}
			}
		}

		String summary() {
			int unexplainedCount = this.unexplained.size();
			return "crash trial: " + this.jobs + " jobs, " + this.workers + " workers, " + this.workerKills
					+ " worker kills, " + this.workerTerms + " worker SIGTERMs, " + this.redisKills + " redis kills, "
					+ this.scriptFlushes + " SCRIPT FLUSH, " + this.clientKills + " CLIENT KILL, lost " + this.lost
					+ ", stuck " + this.stuck + ", dead " + this.dead + ", duplicates " + this.duplicates
					+ ((unexplainedCount == 0) ? " (all explained)" : " (" + unexplainedCount + " unexplained)")
					+ ": " + atWorkerKills() + " at worker kills (" + perKill(atWorkerKills(), this.workerKills)
					+ " per kill), " + this.aroundRedisKills + " around redis kills ("
					+ perKill(this.aroundRedisKills, this.redisKills) + " per kill)";
		}

		int atWorkerKills() {
			return this.explained.get(KILLED_RUNNING) + this.explained.get(KILLED_BEFORE_ACK);
		}

		private static String perKill(int duplicates, int kills) {
			return (kills == 0) ? "-" : String.format(Locale.ROOT, "%.1f", (double) duplicates / kills);
		}

		String details() {
			StringBuilder out = new StringBuilder(summary()).append('\n');
			out.append("  handler runs: ").append(this.runs).append(", jobs that ran: ").append(this.runsById.size())
				.append('\n');
			out.append("  enqueue calls: ").append(this.singleCalls).append(" single, ").append(this.bulkCalls)
				.append(" bulk, ").append(this.failedCalls).append(" failed; keys whose enqueue failed: ")
				.append(this.ambiguousKeys).append(", of which showed up as jobs: ").append(this.ambiguousShownUp)
				.append('\n');
			out.append("  duplicates explained:\n");
			this.explained.forEach((cause, count) -> out.append("    ").append(count).append("  ").append(cause).append('\n'));
			out.append("  duplicates per worker SIGKILL (running at the kill + cut off before the acknowledgement): ");
			List<String> kills = new ArrayList<>();
			for (WorkerStop stop : this.stops) {
				if (stop.killed()) {
					int[] counts = this.perKill.getOrDefault(stop.worker() + "/" + stop.incarnation(), new int[2]);
					kills.add(counts[0] + "+" + counts[1]);
				}
			}
			out.append(kills.isEmpty() ? "none" : String.join(", ", kills)).append('\n');
			out.append("  duplicates around redis SIGKILLs: ").append(this.aroundRedisKills).append('\n');
			out.append("  jobs in flight under a SIGKILLed worker's lease: ").append(this.heldAtKills)
				.append(", of which it had not started (reserved ahead): ").append(this.prefetchedAtKills).append('\n');
			out.append("  jobs left in flight by a worker after SIGTERM: ").append(this.heldAfterTerm).append('\n');
			this.leftAfterTerm.stream().limit(10).forEach((line) -> out.append("    ").append(line).append('\n'));
			out.append("  attempt number of each job's first run: ").append(this.firstAttempts)
				.append("; first runs past attempt 1 that a SIGKILLed worker had held: ").append(this.firstRunLateAfterKill)
				.append('\n');
			if (!this.unhandled.isEmpty()) {
				out.append("  enqueued but never handled to the end (").append(this.unhandled.size()).append("):\n");
				this.unhandled.stream().limit(30).forEach((line) -> out.append("    ").append(line).append('\n'));
			}
			if (!this.unexplained.isEmpty()) {
				out.append("  unexplained duplicates (").append(this.unexplained.size()).append("):\n");
				this.unexplained.stream().limit(30).forEach((line) -> out.append("    ").append(line).append('\n'));
			}
			if (!this.anomalies.isEmpty()) {
				out.append("  journal anomalies (").append(this.anomalies.size()).append("):\n");
				this.anomalies.stream().limit(10).forEach((line) -> out.append("    ").append(line).append('\n'));
			}
			out.append("  faults:\n");
			for (Fault fault : this.faults) {
				out.append("    ").append(fault.start()).append(" +").append(fault.end() - fault.start()).append(" ms ")
					.append(fault.kind()).append(": ").append(fault.detail()).append('\n');
			}
			return out.toString();
		}

	}

}
