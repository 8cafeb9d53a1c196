package io.github.redisqueue.testing.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code redis-server} process owned by a test: bound to 127.0.0.1 on a free port, in a
 * temporary folder of its own, stopped by PID. {@link #restart()} starts it again on the same
 * port and folder, so an append-only file survives a {@link #kill()}.
 */
public final class RedisServerProcess implements AutoCloseable {

	private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly)));
	}

	private final Path binary;

	private final Path dir;

	// chosen anew if the first start finds a port taken meanwhile; kept for every restart
	private volatile int port;

	private final boolean clusterBus;

	private boolean startedOnce;

	private final List<String> extraArgs;

	private Process process;

	private volatile boolean frozen;

	/**
	 * @param binary the redis-server executable
	 * @param extraArgs further configuration, e.g. {@code "--appendonly", "yes"}
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
		this.clusterBus = this.extraArgs.contains("--cluster-enabled");
		this.port = freePort(this.clusterBus);
	}

	/**
	 * Start the server and wait until it answers PING (and has loaded its data). A first start
	 * that finds its port (or a cluster node's bus port, the port + 10,000) taken by another
	 * process since it was chosen starts again on other free ports, up to 5 times in all.
	 */
	public RedisServerProcess start() {
		for (int attempt = 1;; attempt++) {
			try {
				startOnce();
				this.startedOnce = true;
				return this;
			}
			catch (IllegalStateException ex) {
				if (this.startedOnce || attempt >= 5 || this.process == null || this.process.isAlive()
						|| !logTail().contains("Address already in use")) {
					throw ex;
				}
				LIVE.remove(this.process);
				this.port = freePort(this.clusterBus);
			}
		}
	}

	private void startOnce() {
		List<String> command = new ArrayList<>(List.of(this.binary.toString(), "--port", String.valueOf(this.port),
				"--bind", "127.0.0.1", "--protected-mode", "no", "--daemonize", "no", "--dir", this.dir.toString()));
		if (!this.extraArgs.contains("--save")) {
			command.addAll(List.of("--save", ""));
		}
		if (!this.extraArgs.contains("--appendonly")) {
			command.addAll(List.of("--appendonly", "no"));
		}
		command.addAll(this.extraArgs);
		try {
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot start " + this.binary + ": " + ex.getMessage(), ex);
		}
		LIVE.add(this.process);
		raisePriority(this.process.pid());
		awaitReady();
	}

	/**
	 * Raise the server's scheduling priority where this user may ({@code renice}; root may, others
	 * are refused and the server runs as it is). A test server shares the cores with the build
	 * and whatever else runs: at the same priority, a CPU-bound neighbour can keep it descheduled
	 * for tens of ms in the middle of a command, and Redis's own measure of a script (SLOWLOG, the
	 * time from its start to its end) then counts that wait as the script's. Raised, the server is
	 * run when it has work, as a production Redis on cores of its own is, and SLOWLOG measures the
	 * scripts' work.
	 */
	private static void raisePriority(long pid) {
		try {
			Process renice = new ProcessBuilder("renice", "-n", "-10", "-p", Long.toString(pid))
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			renice.waitFor(5, TimeUnit.SECONDS);
		}
		catch (IOException ex) {
			// no renice: the server runs at the build's priority
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void awaitReady() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		String last = "";
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("redis-server exited with " + this.process.exitValue() + "; log:\n" + logTail());
			}
			try {
				if ("PONG".equals(RespClient.call(host(), this.port, "PING"))
						&& RespClient.call(host(), this.port, "INFO", "persistence").contains("loading:0")) {
					return;
				}
			}
			catch (IOException ex) {
				last = ex.getMessage();
			}
			try {
				this.process.waitFor(20, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while starting redis-server", ex);
			}
		}
		throw new IllegalStateException("redis-server on port " + this.port + " did not answer within 10 s (" + last
				+ "); log:\n" + logTail());
	}

	/** The server's host: always 127.0.0.1. */
	public String host() {
		return "127.0.0.1";
	}

	/** Its port. */
	public int port() {
		return this.port;
	}

	/** Its PID. */
	public long pid() {
		return this.process.pid();
	}

	/** Its endpoint. */
	public RedisEndpoint endpoint() {
		return new RedisEndpoint(host(), this.port, "redis-server " + this.binary);
	}

	/** Whether the process runs. */
	public boolean isAlive() {
		return this.process != null && this.process.isAlive();
	}

	/** Kill the process with SIGKILL and wait until it is gone. */
	public void kill() {
		if (this.process == null) {
			return;
		}
		this.process.destroyForcibly();
		waitForExit();
	}

	/**
	 * Freeze the process with SIGSTOP: connections stay open but nothing is answered, like a
	 * server that hangs. {@link #thaw()} (or a stop) lets it go on.
	 */
	public void freeze() {
		signal("STOP");
		this.frozen = true;
	}

	/** Let a frozen process go on (SIGCONT). */
	public void thaw() {
		if (this.frozen) {
			signal("CONT");
			this.frozen = false;
		}
	}

	private void signal(String name) {
		if (this.process == null || !this.process.isAlive()) {
			throw new IllegalStateException("redis-server is not running");
		}
		try {
			Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(this.process.pid())).inheritIO().start();
			if (kill.waitFor() != 0) {
				throw new IllegalStateException("kill -" + name + " " + this.process.pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run kill -" + name, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while signalling redis-server", ex);
		}
	}

	/** Stop the process (SIGTERM) and wait until it is gone. */
	public void stop() {
		if (this.process == null || !this.process.isAlive()) {
			return;
		}
		thaw();
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		waitForExit();
	}

	/** Start again on the same port and folder. */
	public RedisServerProcess restart() {
		if (isAlive()) {
			stop();
		}
		return start();
	}

	@Override
	public void close() {
		stop();
		try (Stream<Path> files = Files.walk(this.dir)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// a leftover temporary folder is harmless
		}
	}

	private void waitForExit() {
		try {
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		LIVE.remove(this.process);
	}

	private Path log() {
		return this.dir.resolve("redis.log");
	}

	private String logTail() {
		try {
			List<String> lines = Files.readAllLines(log());
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
		}
		catch (IOException ex) {
			return "(no log)";
		}
	}

	/**
	 * A port free now on 127.0.0.1; for a cluster node, one whose bus port (+ 10,000) is free too:
	 * the kernel's ephemeral ports of other connections may hold it.
	 */
	private static int freePort(boolean clusterBus) {
		for (int attempt = 0; attempt < 100; attempt++) {
			int port;
			try (ServerSocket socket = new ServerSocket(0)) {
				socket.setReuseAddress(true);
				port = socket.getLocalPort();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			if (!clusterBus || (port + 10000 <= 65535 && isFree(port + 10000))) {
				return port;
			}
		}
		throw new IllegalStateException("No free port with a free cluster bus port (+ 10000) found in 100 tries");
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
