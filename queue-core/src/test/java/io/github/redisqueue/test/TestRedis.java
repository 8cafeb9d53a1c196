package io.github.redisqueue.test;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Gives tests a real Redis on any machine. The shared server comes from, in order: the
 * {@code REDIS_URL} environment variable; Testcontainers when a Docker engine is available; a
 * {@code redis-server} on {@code PATH} (or named by the system property
 * {@code redis.server.binary}) started on a free port; the static Redis 7.0.15 binary shipped in
 * {@code org.signal:embedded-redis}. The system property {@code redis.test.source}
 * ({@code url}, {@code docker}, {@code path}, {@code embedded}) forces one source. When none
 * works the tests fail with a message that lists what was tried; nothing is skipped.
 */
public final class TestRedis {

	private static final String EMBEDDED_RESOURCE = "/redis-server-7.0.15-linux-amd64";

	private static RedisEndpoint shared;

	private TestRedis() {
	}

	/** The Redis shared by every test of this JVM, started on first use. */
	public static synchronized RedisEndpoint shared() {
		if (shared == null) {
			shared = startShared();
			System.err.println("[redis-queue tests] using Redis at " + shared.uri() + " from " + shared.origin());
		}
		return shared;
	}

	private static RedisEndpoint startShared() {
		String forced = System.getProperty("redis.test.source", "");
		List<String> tried = new ArrayList<>();
		if (forced.isEmpty() || forced.equals("url")) {
			String url = System.getenv("REDIS_URL");
			if (url != null && !url.isBlank()) {
				URI uri = URI.create(url);
				return new RedisEndpoint(uri.getHost(), (uri.getPort() > 0) ? uri.getPort() : 6379, "REDIS_URL");
			}
			tried.add("REDIS_URL: not set");
		}
		if (forced.isEmpty() || forced.equals("docker")) {
			try {
				if (DockerClientFactory.instance().isDockerAvailable()) {
					GenericContainer<?> container = new GenericContainer<>("redis:7.4-alpine").withExposedPorts(6379);
					container.start();
					Runtime.getRuntime().addShutdownHook(new Thread(container::stop));
					return new RedisEndpoint(container.getHost(), container.getMappedPort(6379), "testcontainers");
				}
				tried.add("Docker: no Docker engine available");
			}
			catch (Throwable ex) {
				tried.add("Docker: " + ex);
			}
		}
		if (forced.isEmpty() || forced.equals("path")) {
			Path binary = pathBinary();
			if (binary != null) {
				try {
					return new RedisServerProcess(binary).start().endpoint();
				}
				catch (RuntimeException ex) {
					tried.add("PATH (" + binary + "): " + ex.getMessage());
				}
			}
			else {
				tried.add("PATH: no redis-server in " + System.getenv("PATH"));
			}
		}
		if (forced.isEmpty() || forced.equals("embedded")) {
			try {
				RedisServerProcess server = new RedisServerProcess(embeddedBinary()).start();
				return new RedisEndpoint(server.host(), server.port(), "embedded-redis 0.9.1 binary (Redis 7.0.15)");
			}
			catch (RuntimeException ex) {
				tried.add("embedded-redis binary: " + ex.getMessage());
			}
		}
		throw new IllegalStateException("No Redis for the tests. Tried: " + String.join("; ", tried)
				+ ". Install redis-server (apt-get install redis-server), set REDIS_URL, or run a Docker engine.");
	}

	/**
	 * A private server a test may kill and restart; the caller closes it.
	 * @param extraArgs further configuration, e.g. {@code "--appendonly", "yes"}
	 * @return the started server
	 */
	public static RedisServerProcess startPrivate(String... extraArgs) {
		Path binary = "embedded".equals(System.getProperty("redis.test.source")) ? null : pathBinary();
		return new RedisServerProcess((binary != null) ? binary : embeddedBinary(), extraArgs).start();
	}

	/**
	 * A started connection factory for an endpoint; the caller destroys it.
	 * @param endpoint the endpoint
	 * @return the factory
	 */
	public static LettuceConnectionFactory connectionFactory(RedisEndpoint endpoint) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(endpoint.host(), endpoint.port()));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Delete every key of the endpoint.
	 * @param endpoint the endpoint
	 */
	public static void flushAll(RedisEndpoint endpoint) {
		try {
			RespClient.call(endpoint.host(), endpoint.port(), "FLUSHALL");
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot FLUSHALL " + endpoint.uri() + " (" + endpoint.origin() + "): " + ex.getMessage(), ex);
		}
	}

	/**
	 * Calls per command since the last {@link #resetCommandStats}, from {@code INFO commandstats}
	 * (commands run inside scripts included; INFO and CONFIG themselves left out).
	 * @param endpoint the endpoint
	 * @return calls by lower-case command name (subcommands as {@code config|resetstat})
	 */
	public static Map<String, Long> commandStats(RedisEndpoint endpoint) {
		Map<String, Long> calls = new TreeMap<>();
		for (String line : command(endpoint, "INFO", "commandstats").split("\r?\n")) {
			// cmdstat_evalsha:calls=4,usec=680,...
			if (line.startsWith("cmdstat_")) {
				String name = line.substring("cmdstat_".length(), line.indexOf(':'));
				String rest = line.substring(line.indexOf("calls=") + "calls=".length());
				if (!name.equals("info") && !name.startsWith("config")) {
					calls.put(name, Long.parseLong(rest.substring(0, rest.indexOf(','))));
				}
			}
		}
		return calls;
	}

	/**
	 * Reset the command statistics ({@code CONFIG RESETSTAT}).
	 * @param endpoint the endpoint
	 */
	public static void resetCommandStats(RedisEndpoint endpoint) {
		command(endpoint, "CONFIG", "RESETSTAT");
	}

	private static String command(RedisEndpoint endpoint, String... args) {
		try {
			return RespClient.call(endpoint.host(), endpoint.port(), args);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot run " + String.join(" ", args) + " on " + endpoint.uri() + " ("
					+ endpoint.origin() + "): " + ex.getMessage(), ex);
		}
	}

	/** The redis-server named by {@code redis.server.binary} or found on {@code PATH}, or {@code null}. */
	static Path pathBinary() {
		String configured = System.getProperty("redis.server.binary");
		if (configured != null && Files.isExecutable(Path.of(configured))) {
			return Path.of(configured);
		}
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

	/** The redis-server binary of {@code org.signal:embedded-redis}, extracted to a temporary file. */
	public static synchronized Path embeddedBinary() {
		String os = System.getProperty("os.name").toLowerCase();
		String arch = System.getProperty("os.arch");
		if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
			throw new IllegalStateException("the embedded binary is used for Linux x86-64 only, not " + os + "/" + arch);
		}
		try (InputStream in = TestRedis.class.getResourceAsStream(EMBEDDED_RESOURCE)) {
			if (in == null) {
				throw new IllegalStateException("resource " + EMBEDDED_RESOURCE + " not on the class path");
			}
			Path target = Files.createTempFile("redis-server-", "");
			Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
			target.toFile().setExecutable(true);
			target.toFile().deleteOnExit();
			return target;
		}
		catch (IOException ex) {
			throw new IllegalStateException("cannot extract " + EMBEDDED_RESOURCE + ": " + ex.getMessage(), ex);
		}
	}

}
