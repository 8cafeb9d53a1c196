package io.github.redisqueue.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.test.crash.CrashTrial;
import io.github.redisqueue.testing.redis.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker in a JVM of its own: a main class of the test class path started with
 * {@code java -cp <test class path>}, its settings given as system properties, its output in a
 * log file. It is stopped through its {@link Process} handle, by PID, never by name. The main
 * class calls {@link #exitWithParent()} first so that it never outlives the JVM that started it.
 */
public final class WorkerJvm implements AutoCloseable {

	/** System property naming the PID of the starting JVM. */
	public static final String PARENT_PID = "worker.parent-pid";

	private final String name;

	private final Process process;

	private final Path log;

	private WorkerJvm(String name, Process process, Path log) {
		this.name = name;
		this.process = process;
		this.log = log;
	}

	/**
	 * Start a JVM running {@code main} on the test class path; it does not wait for it to be ready.
	 * @param name a name for messages and the log file
	 * @param main the class whose {@code main} runs
	 * @param properties system properties of the JVM
	 * @return the running JVM
	 */
	public static WorkerJvm launch(String name, Class<?> main, Map<String, String> properties) {
		String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		List<String> command = new ArrayList<>(CrashTrial.javaCommand());
		command.add("-D" + PARENT_PID + "=" + ProcessHandle.current().pid());
		// a worker given a node of the shared cluster connects to the cluster
		TestRedis.sharedCluster()
			.ifPresent((cluster) -> command.add("-D" + TestRedis.CLUSTER_NODES + "=" + String.join(",", cluster.clusterNodes())));
		properties.forEach((key, value) -> command.add("-D" + key + "=" + value));
		command.addAll(List.of("-cp", classpath, main.getName()));
		try {
			Path log = Files.createTempFile("worker-" + name + "-", ".log");
			Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
			return new WorkerJvm(name, process, log);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start worker JVM " + name, ex);
		}
	}

	/**
	 * Halt this JVM when the JVM named by {@value #PARENT_PID} ends, however it ends; for the
	 * main class of a worker JVM.
	 */
	public static void exitWithParent() {
		String parent = System.getProperty(PARENT_PID);
		if (parent != null) {
			ProcessHandle.of(Long.parseLong(parent))
				.ifPresentOrElse((handle) -> handle.onExit().thenRun(() -> Runtime.getRuntime().halt(3)),
						() -> Runtime.getRuntime().halt(3));
		}
	}

	/**
	 * Wait until the JVM printed a line containing {@code text}; fails if it ends first.
	 * @param text what to look for
	 * @param timeout how long to wait
	 * @return this JVM
	 */
	public WorkerJvm awaitOutput(String text, Duration timeout) {
		await().atMost(timeout).until(() -> log().contains(text) || !this.process.isAlive());
		assertThat(this.process.isAlive()).as("worker JVM %s is running; its output:%n%s", this.name, log()).isTrue();
		return this;
	}

	/** Its process id. */
	public long pid() {
		return this.process.pid();
	}

	/** Whether the JVM still runs. */
	public boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Its exit code, once it ended.
	 * @throws IllegalThreadStateException while it runs
	 */
	public int exitValue() {
		return this.process.exitValue();
	}

	/**
	 * Kill the JVM with SIGKILL, through its process handle, and wait until it is gone.
	 * @return its exit code (137 for a SIGKILL)
	 * @throws InterruptedException if interrupted while waiting
	 */
	public int kill() throws InterruptedException {
		this.process.destroyForcibly();
		assertThat(this.process.waitFor(30, TimeUnit.SECONDS)).as("worker JVM %s ended after SIGKILL", this.name)
			.isTrue();
		return this.process.exitValue();
	}

	/** What it printed so far. */
	public String log() {
		try {
			return Files.readString(this.log);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Kill the JVM if it still runs. */
	@Override
	public void close() {
		this.process.destroyForcibly();
	}

	@Override
	public String toString() {
		return "WorkerJvm[" + this.name + ", pid " + this.process.pid() + "]";
	}

}
