package io.github.redisqueue.samples.benchmark;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * One snapshot of the commands: calls and microseconds per command from
 * {@code INFO commandstats} (every command Redis executed, those run inside scripts included) and
 * the commands the client sent so far ({@link SentCommands}); the difference of two snapshots
 * gives script calls and other commands sent (round trips), the commands executed, and the time
 * Redis spent in them.
 *
 * @param calls calls per command executed by Redis
 * @param micros microseconds per command executed by Redis (a script's call counts the whole script,
 * and each command the script ran counts its own time again)
 * @param scriptsSent script calls the client sent
 * @param othersSent other commands the client sent
 * @param sentByName commands the client sent, by lower-case name
 */
record CommandStats(Map<String, Long> calls, Map<String, Long> micros, long scriptsSent, long othersSent,
		Map<String, Long> sentByName) {

	/** What the benchmark itself sends to measure and reset, and connection handshakes. */
	private static final Set<String> IGNORED = Set.of("info", "config|resetstat", "config", "flushall", "client|setinfo",
			"client", "hello", "select", "auth");

	private static final Set<String> SCRIPTS = Set.of("evalsha", "eval", "evalsha_ro", "eval_ro", "fcall", "fcall_ro");

	CommandStats(Map<String, Long> calls, long scriptsSent, long othersSent) {
		this(calls, Map.of(), scriptsSent, othersSent, Map.of());
	}

	static CommandStats of(Properties info, SentCommands sent) {
		Map<String, Long> calls = new HashMap<>();
		Map<String, Long> micros = new HashMap<>();
		for (String name : info.stringPropertyNames()) {
			if (name.startsWith("cmdstat_")) {
				String stat = info.getProperty(name);
				calls.put(name.substring(8), field(stat, "calls="));
				micros.put(name.substring(8), field(stat, "usec="));
			}
		}
		return new CommandStats(calls, micros, sent.scripts(), sent.others(), sent.byName());
	}

	private static long field(String stat, String name) {
		int at = stat.indexOf(name);
		if (at < 0) {
			return 0;
		}
		String rest = stat.substring(at + name.length());
		int end = rest.indexOf(',');
		return Long.parseLong((end < 0) ? rest : rest.substring(0, end));
	}

	Delta since(CommandStats earlier) {
		long all = 0;
		double micros = 0;
		for (Map.Entry<String, Long> entry : this.calls.entrySet()) {
			String name = entry.getKey();
			if (IGNORED.contains(name)) {
				continue;
			}
			long called = entry.getValue() - earlier.calls.getOrDefault(name, 0L);
			all += called;
			long spent = this.micros.getOrDefault(name, 0L) - earlier.micros.getOrDefault(name, 0L);
			if (SCRIPTS.contains(name)) {
				micros += spent;
			}
			else if (called > 0) {
				// a script's own time already holds the commands it ran: count only the share of
				// this command's calls that clients sent themselves
				long sent = this.sentByName.getOrDefault(name, 0L) - earlier.sentByName.getOrDefault(name, 0L);
				micros += spent * Math.min(1.0, (double) sent / called);
			}
		}
		return new Delta(this.scriptsSent - earlier.scriptsSent, this.othersSent - earlier.othersSent, all, micros);
	}

	/** The lower-case name {@code INFO commandstats} gives a command type. */
	static String statName(String type) {
		return type.toLowerCase(Locale.ROOT);
	}

	/**
	 * @param scripts script calls sent
	 * @param clientCommands other commands sent
	 * @param executed every command Redis executed, inside scripts included
	 * @param redisMicros the time Redis spent executing what clients sent: script calls whole, and
	 * the commands clients sent themselves (from {@code usec} of {@code INFO commandstats}, the
	 * commands a script ran not counted twice)
	 */
	record Delta(long scripts, long clientCommands, long executed, double redisMicros) {

		Delta(long scripts, long clientCommands, long executed) {
			this(scripts, clientCommands, executed, 0);
		}

		/** Round trips: script calls plus other commands sent. */
		long roundTrips() {
			return this.scripts + this.clientCommands;
		}

	}

}
