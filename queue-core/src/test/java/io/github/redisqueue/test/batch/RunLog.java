package io.github.redisqueue.test.batch;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;

/**
 * Handler runs recorded in Redis, one list entry per start and per end:
 * {@code <batch> start|end <server ms> <job id> <attempt> <worker>}. Every entry is appended by
 * one script call that also reads the server clock, so the list holds the events of all workers
 * in the order the server saw them, each with its server time.
 */
public final class RunLog {

	/** The list of entries. */
	public static final String KEY = "test:runs";

	private static final String START = "start";

	private static final String END = "end";

	private static final DefaultRedisScript<Long> RECORD = new DefaultRedisScript<>("""
			local t = redis.call('TIME')
			local ms = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
			redis.call('RPUSH', KEYS[1], table.concat({ARGV[1], ARGV[2], ms, ARGV[3], ARGV[4], ARGV[5]}, ' '))
			return tonumber(ms)
			""", Long.class);

	private RunLog() {
	}

	/**
	 * Record the start of a handler run.
	 * @param redis a template on the server
	 * @param piece the sub-job's payload
	 * @param jobId the job id
	 * @param attempt the attempt number
	 * @param worker the worker's name
	 */
	public static void started(StringRedisTemplate redis, Piece piece, String jobId, int attempt, String worker) {
		record(redis, START, piece, jobId, attempt, worker);
	}

	/**
	 * Record the end of a handler run.
	 * @param redis a template on the server
	 * @param piece the sub-job's payload
	 * @param jobId the job id
	 * @param attempt the attempt number
	 * @param worker the worker's name
	 */
	public static void ended(StringRedisTemplate redis, Piece piece, String jobId, int attempt, String worker) {
		record(redis, END, piece, jobId, attempt, worker);
	}

	private static void record(StringRedisTemplate redis, String event, Piece piece, String jobId, int attempt,
			String worker) {
		redis.execute(RECORD, List.of(KEY), piece.batch(), event, jobId, Integer.toString(attempt), worker);
	}

	/**
	 * Every recorded run, in the order of their starts; an end belongs to the earliest open run of
	 * the same job on the same worker.
	 * @param redis a template on the server
	 * @return the runs
	 */
	public static List<Run> runs(StringRedisTemplate redis) {
		List<String> entries = redis.opsForList().range(KEY, 0, -1);
		List<Run> runs = new ArrayList<>();
		Map<String, List<Run>> open = new HashMap<>();
		for (int at = 0; at < entries.size(); at++) {
			String[] f = entries.get(at).split(" ");
			if (f.length != 6) {
				throw new IllegalStateException("Unreadable run entry '" + entries.get(at) + "'");
			}
			String runKey = f[3] + " " + f[5];
			if (f[1].equals(START)) {
				Run run = new Run(f[0], f[3], Integer.parseInt(f[4]), f[5], at, Long.parseLong(f[2]));
				runs.add(run);
				open.computeIfAbsent(runKey, (k) -> new ArrayList<>()).add(run);
			}
			else {
				List<Run> candidates = open.getOrDefault(runKey, List.of());
				if (candidates.isEmpty()) {
					throw new IllegalStateException("Run entry '" + entries.get(at) + "' ends a run that never started");
				}
				Run run = candidates.remove(0);
				run.endIndex = at;
				run.endMillis = Long.parseLong(f[2]);
			}
		}
		return runs;
	}

	/**
	 * The runs in progress at the first instant with the most runs in progress: a run is in
	 * progress from its start entry to its end entry, or to the end of the list when it never
	 * ended.
	 * @param runs the runs
	 * @return the runs in progress together at the busiest instant
	 */
	public static List<Run> busiest(Collection<Run> runs) {
		List<Run> byStart = new ArrayList<>(runs);
		byStart.sort(Comparator.comparingInt((Run run) -> run.startIndex));
		List<Run> running = new ArrayList<>();
		List<Run> busiest = List.of();
		for (Run run : byStart) {
			running.removeIf((other) -> other.ended() && other.endIndex < run.startIndex);
			running.add(run);
			if (running.size() > busiest.size()) {
				busiest = List.copyOf(running);
			}
		}
		return busiest;
	}

	/** One handler run: where its entries are in the list and the server times they carry. */
	public static final class Run {

		private final String batch;

		private final String jobId;

		private final int attempt;

		private final String worker;

		private final int startIndex;

		private final long startMillis;

		private int endIndex = -1;

		private long endMillis = -1;

		Run(String batch, String jobId, int attempt, String worker, int startIndex, long startMillis) {
			this.batch = batch;
			this.jobId = jobId;
			this.attempt = attempt;
			this.worker = worker;
			this.startIndex = startIndex;
			this.startMillis = startMillis;
		}

		/** The producer's name for its batch. */
		public String batch() {
			return this.batch;
		}

		/** The job id. */
		public String jobId() {
			return this.jobId;
		}

		/** The attempt number its handler saw. */
		public int attempt() {
			return this.attempt;
		}

		/** The worker that ran it. */
		public String worker() {
			return this.worker;
		}

		/** Server time of its start, ms. */
		public long startMillis() {
			return this.startMillis;
		}

		/** Server time of its end, ms, or -1 when it never ended. */
		public long endMillis() {
			return this.endMillis;
		}

		/** Whether its handler returned. */
		public boolean ended() {
			return this.endIndex >= 0;
		}

		@Override
		public String toString() {
			return "job " + this.jobId + " of " + this.batch + " on " + this.worker + " (attempt " + this.attempt
					+ ") " + this.startMillis + ".." + (ended() ? Long.toString(this.endMillis) : "not ended");
		}

	}

}
