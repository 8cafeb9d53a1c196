package io.github.redisqueue.core.script;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.github.redisqueue.core.script.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;
import static io.github.redisqueue.core.script.ScriptReplies.text;

/**
 * Moves the data under a key prefix from layout {@value #FROM} to the current one, when a template
 * first finds layout {@value #FROM} there: layout 4 kept each job's payload inside its record (and
 * a batch's completion payload inside its gate record); the current layout keeps them in fields of
 * their own. Every queue of the registry, every partition, is walked with {@code migrate.lua}, one
 * short call per slice (bounded in bytes); records already moved are passed over, so instances that
 * start at once both walk the data and each record moves once. The scripts read records of both
 * layouts, so jobs keep running while this goes on.
 */
public final class LayoutMigration {

	/** The layout this migrates from. */
	public static final String FROM = "4";

	private static final byte[] JOBS = encodeAscii("jobs");

	private static final byte[] GATES = encodeAscii("gates");

	private final QueueScriptExecutor executor;

	private final String prefix;

	public LayoutMigration(QueueScriptExecutor executor, String prefix) {
		this.executor = executor;
		this.prefix = prefix;
	}

	/** Migrates every registered queue; returns how many records moved. */
	public long run() {
		Set<byte[]> queues = this.executor.redis().opsForSet().members(encodeUtf8(QueueKeys.registryKey(this.prefix)));
		Map<byte[], byte[]> counts = this.executor.redis()
			.<byte[], byte[]>opsForHash()
			.entries(encodeUtf8(QueueKeys.partitionsKey(this.prefix)));
		long moved = 0;
		if (queues == null) {
			return 0;
		}
		for (byte[] raw : queues) {
			String queue = new String(raw, StandardCharsets.UTF_8);
			int partitions = 1;
			for (Map.Entry<byte[], byte[]> entry : counts.entrySet()) {
				if (queue.equals(new String(entry.getKey(), StandardCharsets.UTF_8))) {
					partitions = Integer.parseInt(new String(entry.getValue(), StandardCharsets.US_ASCII));
				}
			}
			for (int p = 0; p < partitions; p++) {
				QueueKeys k = new QueueKeys(this.prefix, queue, p, partitions);
				moved += migrate(k, JOBS) + migrate(k, GATES);
			}
		}
		return moved;
	}

	private long migrate(QueueKeys k, byte[] records) {
		long moved = 0;
		String cursor = "0";
		do {
			List<Object> reply = this.executor.runOpened(this.executor.scripts().migrate(), k,
					List.of(records, encodeAscii(cursor)));
			cursor = text(reply.get(0));
			moved += ScriptReplies.asLong(reply.get(1));
		}
		while (!"0".equals(cursor));
		return moved;
	}

}
