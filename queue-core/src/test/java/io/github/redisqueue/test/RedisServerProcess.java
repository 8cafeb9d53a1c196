package io.github.redisqueue.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code redis-server} operating-system process owned by a test: bound to 127.0.0.1 on a free
 * port, running in a temporary folder of its own ({@code dir}) that also holds its log
 * ({@code redis.log}). {@link #restart()} starts it again on the same port and folder, so an
 * append-only file written before a {@link #kill()} is loaded again.
 * <p>
 * Defaults: {@code --save ""} and {@code --appendonly no} unless the extra arguments set them.
 * A JVM shutdown hook kills (by PID) every server of this class still running and deletes its
 * folder. Not meant for concurrent use of one instance by several threads.
 */
public final class RedisServerProcess implements AutoCloseable {

	private static final String HOST = "127.0.0.1";

	private static final long START_TIMEOUT_SECONDS = 10;

	private static final long STOP_TIMEOUT_SECONDS = 10;

	private static final int START_ATTEMPTS = 3;

	/** PID to folder of every server started here and not seen to exit yet. */
	private static final Map<Long, Path> RUNNING = new ConcurrentHashMap<>();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(RedisServerProcess::killAll, "redis-server-process-reaper"));
	}

	private final Path binary;

	private final List<String> extraArgs;

	private final Path dir;

	private int port;

	private boolean started;

	private Process process;

	/**
	 * A server that is not started yet; {@link #start()} launches it.
	 * @param binary the {@code redis-server} executable
	 * @param extraArgs further configuration, e.g. {@code "--appendonly", "yes", "--appendfsync", "always"}
	 */
	public RedisServerProcess(Path binary, String... extraArgs) {
		this.binary = binary;
		this.extraArgs = List.of(extraArgs);
		try {
			this.dir = Files.createTempDirectory("redis-test-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.port = freePort();
	}

	/**
	 * Launch the process and wait (at most 10 s) until it answers {@code PING} with {@code PONG}
	 * and {@code INFO persistence} reports {@code loading:0}. Before the first successful start a
	 * port taken in the meantime by someone else is replaced by another free one.
	 * @return this server
	 * @throws IllegalStateException when it runs already, exits or does not answer in time; the
	 * message holds the tail of its log
	 */
	public RedisServerProcess start() {
		if (isAlive()) {
			throw new IllegalStateException("redis-server runs already with PID " + pid());
		}
		for (int attempt = 1;; attempt++) {
			launch();
			try {
				awaitReady();
				this.started = true;
				return this;
			}
			catch (IllegalStateException ex) {
				if (this.started || attempt >= START_ATTEMPTS || !log().contains("Address already in use")) {
					throw ex;
				}
				this.port = freePort();
			}
		}
	}

	/**
	 * Kill the process with SIGKILL (by PID) and wait until it is gone; nothing is flushed.
	 */
	public void kill() {
		if (this.process == null) {
			return;
		}
		ProcessHandle.of(this.process.pid()).ifPresent(ProcessHandle::destroyForcibly);
		awaitExit();
	}

	/**
	 * Stop the process gracefully with {@code SHUTDOWN NOSAVE}, falling back to SIGTERM and then
	 * SIGKILL, and wait until it is gone.
	 */
	public void stop() {
		if (this.process == null) {
			return;
		}
		if (this.process.isAlive()) {
			try {
				RespClient.call(HOST, this.port, "SHUTDOWN", "NOSAVE");
			}
			catch (IOException ex) {
				// the expected outcome: the server closes the connection without a reply
			}
			if (!waitFor(STOP_TIMEOUT_SECONDS)) {
				this.process.destroy();
				if (!waitFor(STOP_TIMEOUT_SECONDS)) {
					this.process.destroyForcibly();
				}
			}
		}
		awaitExit();
	}

	/**
	 * Start the server again on the same port and in the same folder (stopping it first when it
	 * still runs), and wait until it answers and has loaded its data set.
	 * @return this server
	 */
	public RedisServerProcess restart() {
		stop();
		return start();
	}

	/** Stop the server and delete its folder. */
	@Override
	public void close() {
		stop();
		deleteRecursively(this.dir);
	}

	/**
	 * Whether the process runs.
	 * @return {@code true} when started and not exited
	 */
	public boolean isAlive() {
		return this.process != null && this.process.isAlive();
	}

	/**
	 * The PID of the current (or last) process.
	 * @return the PID
	 */
	public long pid() {
		if (this.process == null) {
			throw new IllegalStateException("redis-server was never started");
		}
		return this.process.pid();
	}

	/**
	 * The host it binds.
	 * @return always {@code 127.0.0.1}
	 */
	public String host() {
		return HOST;
	}

	/**
	 * Its port, the same across restarts.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Its working folder ({@code --dir}), holding the data files and {@code redis.log}.
	 * @return the folder
	 */
	public Path dir() {
		return this.dir;
	}

	/**
	 * Its endpoint, with the binary as origin.
	 * @return the endpoint
	 */
	public RedisEndpoint endpoint() {
		return new RedisEndpoint(HOST, this.port, "redis-server process (" + this.binary + ")");
	}

	private void launch() {
		List<String> command = new ArrayList<>(List.of(this.binary.toString(), "--port", String.valueOf(this.port),
				"--bind", HOST, "--protected-mode", "no", "--daemonize", "no", "--dir", this.dir.toString()));
		if (!configures("--save")) {
			command.addAll(List.of("--save", ""));
		}
		if (!configures("--appendonly")) {
			command.addAll(List.of("--appendonly", "no"));
		}
		command.addAll(this.extraArgs);
		try {
			this.process = new ProcessBuilder(command).directory(this.dir.toFile())
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot start " + this.binary + ": " + ex.getMessage(), ex);
		}
		RUNNING.put(this.process.pid(), this.dir);
	}

	private boolean configures(String option) {
		return this.extraArgs.stream().anyMatch((arg) -> arg.toLowerCase(Locale.ROOT).equals(option));
	}

	private void awaitReady() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
		String lastError = "no attempt";
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				awaitExit();
				throw new IllegalStateException("redis-server " + this.binary + " on port " + this.port + " exited with "
						+ this.process.exitValue() + "; log tail:\n" + logTail());
			}
			try {
				if ("PONG".equals(RespClient.call(HOST, this.port, "PING"))
						&& RespClient.call(HOST, this.port, "INFO", "persistence").contains("loading:0")) {
					return;
				}
				lastError = "still loading its data set";
			}
			catch (IOException ex) {
				lastError = ex.getMessage();
			}
			waitFor(0);
		}
		kill();
		throw new IllegalStateException("redis-server " + this.binary + " on port " + this.port + " did not answer PING within "
				+ START_TIMEOUT_SECONDS + " s (" + lastError + "); log tail:\n" + logTail());
	}

	/** Wait for the process to exit, at most the given seconds (0: a short poll pause). */
	private boolean waitFor(long seconds) {
		try {
			return (seconds > 0) ? this.process.waitFor(seconds, TimeUnit.SECONDS)
					: this.process.waitFor(20, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
		}
	}

	private void awaitExit() {
		if (!waitFor(STOP_TIMEOUT_SECONDS)) {
			throw new IllegalStateException("redis-server with PID " + this.process.pid() + " did not exit");
		}
		RUNNING.remove(this.process.pid());
	}

	private Path logFile() {
		return this.dir.resolve("redis.log");
	}

	private String log() {
		try {
			return Files.readString(logFile());
		}
		catch (IOException ex) {
			return "";
		}
	}

	private String logTail() {
		List<String> lines = log().lines().toList();
		return (lines.isEmpty()) ? "(empty log)" : String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void deleteRecursively(Path dir) {
		try (Stream<Path> files = Files.walk(dir)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException | UncheckedIOException ex) {
			// a leftover temporary folder is harmless
		}
	}

	private static void killAll() {
		RUNNING.keySet().forEach((pid) -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
		RUNNING.forEach((pid, dir) -> {
			ProcessHandle.of(pid).ifPresent((handle) -> handle.onExit().completeOnTimeout(handle, 2, TimeUnit.SECONDS).join());
			deleteRecursively(dir);
		});
	}

}
