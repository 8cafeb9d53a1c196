package io.github.redisqueue.samples.benchmark;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * One snapshot of the commands: calls per command from {@code INFO commandstats} (every command
 * Redis executed, those run inside scripts included) and the commands the client sent so far
 * ({@link SentCommands}); the difference of two snapshots gives script calls and other commands
 * sent (round trips) and the commands executed.
 *
 * @param calls calls per command executed by Redis
 * @param scriptsSent script calls the client sent
 * @param othersSent other commands the client sent
 */
record CommandStats(Map<String, Long> calls, long scriptsSent, long othersSent) {

	/** What the benchmark itself sends to measure and reset, and connection handshakes. */
	private static final Set<String> IGNORED = Set.of("info", "config|resetstat", "config", "flushall", "client|setinfo",
			"client", "hello", "select", "auth");

	static CommandStats of(Properties info, SentCommands sent) {
		Map<String, Long> calls = new HashMap<>();
		for (String name : info.stringPropertyNames()) {
			if (name.startsWith("cmdstat_")) {
				String stat = info.getProperty(name);
				String count = stat.substring(stat.indexOf("calls=") + 6);
				calls.put(name.substring(8), Long.parseLong(count.substring(0, count.indexOf(','))));
			}
		}
		return new CommandStats(calls, sent.scripts(), sent.others());
	}

	Delta since(CommandStats earlier) {
		long all = 0;
		for (Map.Entry<String, Long> entry : this.calls.entrySet()) {
			if (!IGNORED.contains(entry.getKey())) {
				all += entry.getValue() - earlier.calls.getOrDefault(entry.getKey(), 0L);
			}
		}
		return new Delta(this.scriptsSent - earlier.scriptsSent, this.othersSent - earlier.othersSent, all);
	}

	/**
	 * @param scripts script calls sent
	 * @param clientCommands other commands sent
	 * @param executed every command Redis executed, inside scripts included
	 */
	record Delta(long scripts, long clientCommands, long executed) {

		/** Round trips: script calls plus other commands sent. */
		long roundTrips() {
			return this.scripts + this.clientCommands;
		}

	}

}
