package io.github.redisqueue.test.crash;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * What a crash trial records while it runs, for {@link TrialReport} to judge afterwards. Times are
 * epoch milliseconds of the machine's clock, which every process of the trial shares.
 */
public final class TrialEvents {

	private TrialEvents() {
	}

	/**
	 * One run of a worker process.
	 * @param worker the worker's number (its identity across restarts)
	 * @param number which start of that worker, from 1
	 * @param pid the process id
	 * @param journal its journal of handler runs
	 * @param log its standard output and error
	 * @param startedAt when it was started
	 */
	public record Incarnation(int worker, int number, long pid, Path journal, Path log, long startedAt) {

	}

	/**
	 * A worker process stopped by the trial.
	 * @param worker the worker's number
	 * @param incarnation which start of it
	 * @param pid the process id
	 * @param signal {@code KILL} or {@code TERM} (a TERM that did not end the process in time is
	 * followed by a KILL and recorded as {@code KILL})
	 * @param at when the signal was sent
	 * @param exitedAt when the process was gone
	 * @param held the jobs in flight under the worker's lease identity once it was gone (read from
	 * Redis before the worker restarts): started, finished but not yet acknowledged, and
	 * reserved ahead (prefetched) alike
	 */
	public record WorkerStop(int worker, int incarnation, long pid, String signal, long at, long exitedAt,
			Set<String> held) {

		public boolean killed() {
			return "KILL".equals(this.signal);
		}

	}

	/**
	 * A fault the trial injected.
	 * @param kind what it was
	 * @param start when it began
	 * @param end when it was over (the server answered again, the worker ran again)
	 * @param detail what it hit
	 */
	public record Fault(String kind, long start, long end, String detail) {

		/** Whether it cut the Redis connections of the trial's clients. */
		public boolean cutsConnections() {
			return this.kind.equals(REDIS_KILL) || this.kind.equals(CLIENT_KILL);
		}

		/** Whether it overlaps the time span from {@code from} to {@code to}. */
		public boolean overlaps(long from, long to) {
			return this.start <= to && from <= this.end;
		}

	}

	public static final String WORKER_KILL = "worker SIGKILL";

	public static final String WORKER_TERM = "worker SIGTERM";

	public static final String REDIS_KILL = "redis SIGKILL";

	public static final String SCRIPT_FLUSH = "SCRIPT FLUSH";

	public static final String CLIENT_KILL = "CLIENT KILL";

	/**
	 * One enqueue call of the producer.
	 * @param keys the keys of the jobs it carried
	 * @param bulk whether it was a bulk enqueue
	 * @param idempotent whether it carried an idempotency key (a repeat returns the first job)
	 * @param start when it was sent
	 * @param end when it answered or failed
	 * @param ids the job ids it returned, one per key; {@code null} when it failed
	 * @param error why it failed
	 */
	public record EnqueueCall(List<String> keys, boolean bulk, boolean idempotent, long start, long end,
			@Nullable List<String> ids, @Nullable String error) {

	}

}
