package io.github.redisqueue.samples.outbox;

import io.github.redisqueue.test.WorkerJvm;

/**
 * The outbox sample in a JVM of its own, started by a test: it halts when the test's JVM ends,
 * and takes its settings from system properties.
 */
public final class OutboxJvmMain {

	private OutboxJvmMain() {
	}

	public static void main(String[] args) {
		WorkerJvm.exitWithParent();
		OutboxApplication.main(args);
	}

}
