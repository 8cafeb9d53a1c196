package io.github.redisqueue.samples.quickstart;

import io.github.redisqueue.test.WorkerJvm;

/**
 * Starts the quick start in a JVM of its own that ends with the test's JVM. Spring Boot takes
 * {@link QuickstartApplication} as the main class (the innermost {@code main} on the stack), so
 * with {@code -Dspring.aot.enabled=true} it runs the context the build worked out ahead of time.
 */
public final class QuickstartAotMain {

	private QuickstartAotMain() {
	}

	public static void main(String[] args) {
		WorkerJvm.exitWithParent();
		QuickstartApplication.main(args);
	}

}
