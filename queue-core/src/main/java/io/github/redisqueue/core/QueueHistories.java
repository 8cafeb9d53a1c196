package io.github.redisqueue.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueScriptExecutor;

/**
 * Reads the per-minute history of a queue (see {@code common-history.lua}): one inspect call per
 * partition, in one round trip, the partitions' counts summed by minute.
 */
final class QueueHistories {

	/** Bytes of one minute's slot: completed (24 bits) and failed (16 bits). */
	static final int SLOT_BYTES = 5;

	/** Where the last minute written is stored (u32, big endian). */
	static final int MARK_OFFSET = QueueHistory.MINUTES * SLOT_BYTES;

	private static final byte[] HISTORY = "history".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

	private static final long MINUTE_MS = 60_000;

	private final QueueContext context;

	QueueHistories(QueueContext context) {
		this.context = context;
	}

	QueueHistory read(String queue) {
		QueueKeys[] parts = this.context.partitions(queue);
		QueueScriptExecutor executor = this.context.executor();
		List<QueueScriptExecutor.Command> calls = new ArrayList<>(parts.length);
		for (QueueKeys k : parts) {
			calls.add(QueueScriptExecutor.ScriptCall.of(executor.scripts().inspect(), k, List.of(HISTORY)));
		}
		List<Object> replies = executor.pipelined(calls);
		List<?> first = (List<?>) replies.get(0);
		long now = ((Number) first.get(0)).longValue();
		long lastMinute = Math.floorDiv(now, MINUTE_MS);
		long firstMinute = lastMinute - QueueHistory.MINUTES + 1;
		long[] completed = new long[QueueHistory.MINUTES];
		long[] failed = new long[QueueHistory.MINUTES];
		for (Object reply : replies) {
			Object raw = ((List<?>) reply).get(1);
			decode((raw instanceof byte[] bytes) ? bytes : new byte[0], firstMinute, completed, failed);
		}
		return new QueueHistory(queue, Instant.ofEpochMilli(firstMinute * MINUTE_MS), Instant.ofEpochMilli(now),
				boxed(completed), boxed(failed));
	}

	/**
	 * Adds the counts of one history string to the minutes from {@code firstMinute} on: a slot
	 * counts only for the 1,440 minutes up to the string's marker (older slots are not zeroed yet).
	 */
	static void decode(byte[] history, long firstMinute, long[] completed, long[] failed) {
		if (history.length < MARK_OFFSET + 4) {
			return;
		}
		long mark = unsigned(history, MARK_OFFSET, 4);
		for (int i = 0; i < QueueHistory.MINUTES; i++) {
			long minute = firstMinute + i;
			if (minute > mark || minute <= mark - QueueHistory.MINUTES) {
				continue;
			}
			int at = (int) Math.floorMod(minute, (long) QueueHistory.MINUTES) * SLOT_BYTES;
			completed[i] += unsigned(history, at, 3);
			failed[i] += unsigned(history, at + 3, 2);
		}
	}

	private static long unsigned(byte[] bytes, int offset, int length) {
		long value = 0;
		for (int i = 0; i < length; i++) {
			value = (value << 8) | (bytes[offset + i] & 0xFF);
		}
		return value;
	}

	private static List<Long> boxed(long[] values) {
		return List.copyOf(Arrays.stream(values).boxed().toList());
	}

}
