package io.github.redisqueue.samples.benchmark;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;

/**
 * Counts the commands the client sends, on every connection of the benchmark's Redis client:
 * each is one round trip of its connection. Scripts run commands of their own inside Redis, so
 * the client's side is the only place where round trips can be told apart from the commands
 * Redis executed. The commands the benchmark sends to measure and reset ({@code INFO},
 * {@code FLUSHALL}) and the handshake of new connections are not counted.
 */
final class SentCommands implements CommandListener {

	private static final Set<String> SCRIPT_COMMANDS = Set.of("EVALSHA", "EVAL", "EVALSHA_RO", "EVAL_RO", "FCALL",
			"FCALL_RO");

	private static final Set<String> IGNORED = Set.of("INFO", "FLUSHALL", "CONFIG", "CLIENT", "HELLO", "SELECT",
			"AUTH", "CLUSTER", "COMMAND", "READONLY");

	private final LongAdder scripts = new LongAdder();

	private final LongAdder others = new LongAdder();

	private final Map<String, LongAdder> byName = new ConcurrentHashMap<>();

	@Override
	public void commandStarted(CommandStartedEvent event) {
		String type = event.getCommand().getType().toString().toUpperCase(Locale.ROOT);
		if (SCRIPT_COMMANDS.contains(type)) {
			this.scripts.increment();
		}
		else if (!IGNORED.contains(type)) {
			this.others.increment();
		}
		this.byName.computeIfAbsent(CommandStats.statName(type), (name) -> new LongAdder()).increment();
	}

	/** Script calls sent so far. */
	long scripts() {
		return this.scripts.sum();
	}

	/** Every command sent so far, by the lower-case name {@code INFO commandstats} gives it. */
	Map<String, Long> byName() {
		Map<String, Long> counts = new HashMap<>();
		this.byName.forEach((name, count) -> counts.put(name, count.sum()));
		return counts;
	}

	/** Other commands sent so far, the ignored ones left out. */
	long others() {
		return this.others.sum();
	}

}
