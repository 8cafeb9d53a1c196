package io.github.redisqueue.samples.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis the benchmark measures against: the one named by {@code --redis-url}, or a
 * {@code redis-server} started on a free port (from {@code PATH}, else the binary shipped in
 * {@code org.signal:embedded-redis}) without persistence, stopped at the end.
 */
final class RedisUnderTest implements AutoCloseable {

	private final String host;

	private final int port;

	private final Process process;

	private final String origin;

	private final LettuceConnectionFactory connectionFactory;

	private final SentCommands sent = new SentCommands();

	private RedisUnderTest(String host, int port, Process process, String origin) {
		this.host = host;
		this.port = port;
		this.process = process;
		this.origin = origin;
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.connectionFactory.getRequiredNativeClient().addListener(this.sent);
		awaitPing();
	}

	static RedisUnderTest start(String url) throws IOException {
		if (url != null) {
			URI uri = URI.create(url);
			return new RedisUnderTest(uri.getHost(), (uri.getPort() > 0) ? uri.getPort() : 6379, null, url);
		}
		Path binary = onPath();
		String origin = (binary != null) ? binary.toString() : "embedded-redis 0.9.1 binary";
		binary = binary();
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		Path dir = Files.createTempDirectory("redis-bench-");
		Process process = new ProcessBuilder(binary.toString(), "--port", String.valueOf(port), "--bind", "127.0.0.1",
				"--save", "", "--appendonly", "no", "--dir", dir.toString())
			.redirectErrorStream(true)
			.redirectOutput(dir.resolve("redis.log").toFile())
			.start();
		Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
		return new RedisUnderTest("127.0.0.1", port, process, origin);
	}

	private void awaitPing() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (true) {
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				connection.ping();
				return;
			}
			catch (RuntimeException ex) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("Redis at " + this.host + ":" + this.port + " does not answer", ex);
				}
				java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
			}
		}
	}

	LettuceConnectionFactory connectionFactory() {
		return this.connectionFactory;
	}

	/** The commands sent through {@link #connectionFactory()} so far. */
	SentCommands sent() {
		return this.sent;
	}

	String host() {
		return this.host;
	}

	int port() {
		return this.port;
	}

	String origin() {
		return this.origin;
	}

	String version() {
		return info("server").getProperty("redis_version", "?");
	}

	Properties info(String section) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return connection.serverCommands().info(section);
		}
	}

	void flushAll() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.serverCommands().flushAll();
		}
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
		if (this.process != null) {
			this.process.destroy();
			try {
				this.process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** The redis-server on {@code PATH}, else the embedded binary. */
	static Path binary() throws IOException {
		Path binary = onPath();
		return (binary != null) ? binary : extractEmbedded();
	}

	private static Path onPath() {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String dir : path.split(java.io.File.pathSeparator)) {
			Path candidate = Path.of(dir, "redis-server");
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return null;
	}

	private static Path extractEmbedded() throws IOException {
		try (InputStream in = RedisUnderTest.class.getResourceAsStream("/redis-server-7.0.15-linux-amd64")) {
			if (in == null) {
				throw new IllegalStateException("No redis-server on PATH and no embedded binary for this platform");
			}
			Path target = Files.createTempFile("redis-server-", "");
			Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
			target.toFile().setExecutable(true);
			target.toFile().deleteOnExit();
			return target;
		}
	}

}
