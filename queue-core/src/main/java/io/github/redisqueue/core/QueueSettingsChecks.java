package io.github.redisqueue.core;

import java.time.Duration;

import static io.github.redisqueue.core.QueueSettings.MAX_BATCH;
import static io.github.redisqueue.core.QueueSettings.MAX_CONCURRENCY_CAP;

/** The range checks {@link QueueSettings.Builder#build()} makes, each naming the value and the rule. */
final class QueueSettingsChecks {

	private QueueSettingsChecks() {
	}

	/**
	 * Checks every value of a builder.
	 * @return the worker id the settings get
	 */
	static String check(QueueSettings.Builder b) {
		QueueNames.validatePrefix(b.keyPrefix);
		String workerId = WorkerIds.validate((b.workerId != null) ? b.workerId : QueueSettings.defaultWorkerId());
		positive("Max payload size", b.maxPayloadBytes);
		if (b.defaultMaxAttempts < 1 || b.defaultMaxAttempts > JobOptions.MAX_ATTEMPTS_LIMIT) {
			throw new IllegalArgumentException("Default max attempts " + b.defaultMaxAttempts
					+ " is out of range: it must be from 1 to " + JobOptions.MAX_ATTEMPTS_LIMIT);
		}
		notNegative("Completed-job retention", b.completedRetention);
		notNegative("Dead-job retention", b.deadRetention);
		batch("Reclaim batch", b.reclaimBatch);
		batch("Reap batch", b.reapBatch);
		positive("Enqueue chunk", b.enqueueChunk);
		notNegative("Result retention", b.resultRetention);
		atMost("Result retention", b.resultRetention);
		positive("Max result size", b.maxResultBytes);
		if (b.batchRetention.compareTo(Duration.ofMillis(1)) < 0) {
			throw new IllegalArgumentException(
					"Batch retention " + b.batchRetention + " is out of range: it must be 1 ms or more");
		}
		atMost("Batch retention", b.batchRetention);
		cap("Default group concurrency", b.defaultGroupConcurrency);
		b.queues.forEach((queue, settings) -> settings.validateGroupConcurrency(queue));
		b.queues.forEach((queue, settings) -> settings.validatePartitions(queue));
		b.queues.forEach((queue, settings) -> settings.validateRateLimit(queue));
		return workerId;
	}

	static void batch(String what, int value) {
		if (value < 1 || value > MAX_BATCH) {
			throw new IllegalArgumentException(
					what + " " + value + " is out of range: it must be from 1 to " + MAX_BATCH);
		}
	}

	static void cap(String what, int value) {
		if (value < 1 || value > MAX_CONCURRENCY_CAP) {
			throw new IllegalArgumentException(
					what + " " + value + " is out of range: it must be from 1 to " + MAX_CONCURRENCY_CAP);
		}
	}

	static void atMost(String what, Duration value) {
		if (value.compareTo(JobOptions.MAX_WINDOW) > 0) {
			throw new IllegalArgumentException(what + " " + value + " is out of range: it must be at most 3650 days");
		}
	}

	static void positive(String what, int value) {
		if (value <= 0) {
			throw new IllegalArgumentException(what + " " + value + " must be positive");
		}
	}

	static void notNegative(String what, Duration value) {
		if (value.isNegative()) {
			throw new IllegalArgumentException(what + " " + value + " must not be negative");
		}
	}

}
