package io.github.redisqueue.samples.benchmark;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Calls per command from {@code INFO commandstats}, and the difference of two snapshots split
 * into script calls (EVAL/EVALSHA: one round trip each), other commands sent by clients, and
 * every command Redis executed (those run inside scripts included).
 */
record CommandStats(Map<String, Long> calls) {

	/** Commands the engine sends itself, outside scripts. */
	private static final Set<String> CLIENT_COMMANDS = Set.of("blmove", "sadd", "smembers", "setnx", "hgetall",
			"script|load", "script", "ping");

	private static final Set<String> SCRIPT_COMMANDS = Set.of("evalsha", "eval", "evalsha_ro", "eval_ro");

	private static final Set<String> IGNORED = Set.of("info", "config|resetstat", "config", "flushall", "client|setinfo",
			"client", "hello", "select");

	static CommandStats of(Properties info) {
		Map<String, Long> calls = new HashMap<>();
		for (String name : info.stringPropertyNames()) {
			if (name.startsWith("cmdstat_")) {
				String stat = info.getProperty(name);
				String count = stat.substring(stat.indexOf("calls=") + 6);
				calls.put(name.substring(8), Long.parseLong(count.substring(0, count.indexOf(','))));
			}
		}
		return new CommandStats(calls);
	}

	Delta since(CommandStats earlier) {
		long scripts = 0;
		long client = 0;
		long all = 0;
		for (Map.Entry<String, Long> entry : this.calls.entrySet()) {
			long delta = entry.getValue() - earlier.calls.getOrDefault(entry.getKey(), 0L);
			String name = entry.getKey();
			if (IGNORED.contains(name)) {
				continue;
			}
			all += delta;
			if (SCRIPT_COMMANDS.contains(name)) {
				scripts += delta;
			}
			else if (CLIENT_COMMANDS.contains(name)) {
				client += delta;
			}
		}
		return new Delta(scripts, client, all);
	}

	/**
	 * @param scripts script calls
	 * @param clientCommands other commands sent by clients
	 * @param executed every command Redis executed, inside scripts included
	 */
	record Delta(long scripts, long clientCommands, long executed) {

		/** Round trips: script calls plus other client commands. */
		long roundTrips() {
			return this.scripts + this.clientCommands;
		}

	}

}
