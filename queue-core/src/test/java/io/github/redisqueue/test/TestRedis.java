package io.github.redisqueue.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Gives every test a real Redis on any machine. The {@link #shared() shared} server comes from
 * the first of these sources that works:
 * <ol>
 * <li>{@code url}: the environment variable {@code REDIS_URL} ({@code redis://host:port}), when
 * set and answering {@code PING};</li>
 * <li>{@code docker}: Testcontainers ({@value #DOCKER_IMAGE}) when a Docker engine is available;</li>
 * <li>{@code path}: a {@code redis-server} named by the system property
 * {@value #BINARY_PROPERTY} or found on {@code PATH}, started on a free port;</li>
 * <li>{@code embedded}: the static Redis 7.0.15 binary shipped inside
 * {@code org.signal:embedded-redis} 0.9.1, extracted and started the same way.</li>
 * </ol>
 * The system property {@value #SOURCE_PROPERTY} ({@code url}, {@code docker}, {@code path} or
 * {@code embedded}) forces one source. When nothing works the tests fail with a message listing
 * every source tried and why it failed: nothing is skipped.
 */
public final class TestRedis {

	/** System property forcing one source of the shared server. */
	public static final String SOURCE_PROPERTY = "redis.test.source";

	/** System property naming a {@code redis-server} executable to use before {@code PATH}. */
	public static final String BINARY_PROPERTY = "redis.server.binary";

	private static final List<String> SOURCES = List.of("url", "docker", "path", "embedded");

	private static final String DOCKER_IMAGE = "redis:7.4-alpine";

	private static final String EMBEDDED_VERSION = "7.0.15";

	private static RedisEndpoint shared;

	private static IllegalStateException sharedFailure;

	private static Path embeddedBinary;

	private TestRedis() {
	}

	/**
	 * The Redis shared by every test of this JVM, started on first use (thread-safe). Tests
	 * sharing it must not rely on other tests' keys; {@link #flushAll(RedisEndpoint)} empties it.
	 * @return its endpoint
	 * @throws IllegalStateException when no source works; later calls fail the same way at once
	 */
	public static synchronized RedisEndpoint shared() {
		if (shared == null && sharedFailure == null) {
			try {
				shared = startShared(System.getProperty(SOURCE_PROPERTY, ""));
				System.err.println("[TestRedis] shared Redis " + shared.uri() + " from " + shared.origin());
			}
			catch (IllegalStateException ex) {
				sharedFailure = ex;
			}
		}
		if (sharedFailure != null) {
			throw new IllegalStateException(sharedFailure.getMessage(), sharedFailure);
		}
		return shared;
	}

	/**
	 * A private server that a test may kill and restart: the {@code redis-server} named by
	 * {@value #BINARY_PROPERTY} or found on {@code PATH}, else the embedded binary (always the
	 * embedded one when {@value #SOURCE_PROPERTY} is {@code embedded}). The caller closes it.
	 * @param extraArgs further configuration, e.g. {@code "--appendonly", "yes"}
	 * @return the started server
	 */
	public static RedisServerProcess startPrivate(String... extraArgs) {
		Path binary;
		if ("embedded".equals(forcedSource(System.getProperty(SOURCE_PROPERTY, "")))) {
			binary = embeddedBinary();
		}
		else {
			try {
				binary = pathBinary();
			}
			catch (IllegalStateException ex) {
				binary = embeddedBinary();
			}
		}
		return new RedisServerProcess(binary, extraArgs).start();
	}

	/**
	 * A started Lettuce connection factory for an endpoint; the caller destroys it.
	 * @param endpoint the endpoint
	 * @return the factory, initialized and started
	 */
	public static LettuceConnectionFactory connectionFactory(RedisEndpoint endpoint) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(endpoint.host(), endpoint.port()));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Delete every key of every database of an endpoint ({@code FLUSHALL}).
	 * @param endpoint the endpoint
	 */
	public static void flushAll(RedisEndpoint endpoint) {
		try {
			RespClient.call(endpoint.host(), endpoint.port(), "FLUSHALL");
		}
		catch (IOException ex) {
			throw new IllegalStateException(
					"Cannot FLUSHALL " + endpoint.uri() + " (" + endpoint.origin() + "): " + ex.getMessage(), ex);
		}
	}

	/**
	 * The {@code redis-server} binary shipped in {@code org.signal:embedded-redis} for this
	 * platform (on Linux x86-64 the class-path resource {@code /redis-server-7.0.15-linux-amd64}),
	 * extracted once per JVM to an executable temporary file.
	 * @return the executable
	 * @throws IllegalStateException when the platform has no binary or extraction fails
	 */
	public static synchronized Path embeddedBinary() {
		if (embeddedBinary == null) {
			embeddedBinary = extract(embeddedResource());
		}
		return embeddedBinary;
	}

	/**
	 * The first source that works, or only the forced one.
	 * @param source empty for all in order, else one of {@code url}, {@code docker}, {@code path}, {@code embedded}
	 */
	static RedisEndpoint startShared(String source) {
		String forced = forcedSource(source);
		List<String> failures = new ArrayList<>();
		for (String candidate : SOURCES) {
			if (forced.isEmpty() || forced.equals(candidate)) {
				try {
					return switch (candidate) {
						case "url" -> fromUrl();
						case "docker" -> fromDocker();
						case "path" -> fromPath();
						default -> fromEmbedded();
					};
				}
				catch (RuntimeException ex) {
					failures.add(ex.getMessage());
				}
			}
		}
		throw new IllegalStateException("No Redis for the tests" + (forced.isEmpty() ? "" : " (" + SOURCE_PROPERTY + "=" + forced + ")")
				+ ": " + String.join("; ", failures)
				+ ". Set REDIS_URL, run a Docker engine, or install redis-server (e.g. apt-get install redis-server).");
	}

	private static String forcedSource(String source) {
		String forced = source.trim().toLowerCase(Locale.ROOT);
		if (!forced.isEmpty() && !SOURCES.contains(forced)) {
			throw new IllegalStateException(SOURCE_PROPERTY + " must be one of " + SOURCES + " or empty, not '" + source + "'");
		}
		return forced;
	}

	private static RedisEndpoint fromUrl() {
		String url = System.getenv("REDIS_URL");
		if (url == null || url.isBlank()) {
			throw new IllegalStateException("REDIS_URL: not set");
		}
		RedisEndpoint endpoint;
		try {
			URI uri = URI.create(url.trim());
			endpoint = new RedisEndpoint(Objects.requireNonNull(uri.getHost(), "no host"),
					(uri.getPort() > 0) ? uri.getPort() : 6379, "REDIS_URL");
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("REDIS_URL: cannot parse '" + url + "' as redis://host:port (" + ex.getMessage() + ")");
		}
		try {
			String pong = RespClient.call(endpoint.host(), endpoint.port(), "PING");
			if (!"PONG".equals(pong)) {
				throw new IOException("PING answered " + pong);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("REDIS_URL: " + endpoint.uri() + " does not answer PING (" + ex.getMessage() + ")");
		}
		return endpoint;
	}

	private static RedisEndpoint fromDocker() {
		boolean available;
		try {
			available = DockerClientFactory.instance().isDockerAvailable();
		}
		catch (Throwable ex) {
			throw new IllegalStateException("Docker: " + ex);
		}
		if (!available) {
			throw new IllegalStateException("Docker: not available");
		}
		try {
			GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(DOCKER_IMAGE)).withExposedPorts(6379);
			container.start();
			Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "redis-test-container-stop"));
			return new RedisEndpoint(container.getHost(), container.getMappedPort(6379), "testcontainers (" + DOCKER_IMAGE + ")");
		}
		catch (Throwable ex) {
			throw new IllegalStateException("Docker: " + DOCKER_IMAGE + " did not start: " + ex);
		}
	}

	private static RedisEndpoint fromPath() {
		Path binary;
		try {
			binary = pathBinary();
		}
		catch (IllegalStateException ex) {
			throw new IllegalStateException("PATH: " + ex.getMessage());
		}
		String origin = (System.getProperty(BINARY_PROPERTY) != null)
				? "redis-server from " + BINARY_PROPERTY + " (" + binary + ")" : "redis-server on PATH (" + binary + ")";
		return startServer(binary, origin, "PATH");
	}

	private static RedisEndpoint fromEmbedded() {
		Path binary;
		try {
			binary = embeddedBinary();
		}
		catch (IllegalStateException ex) {
			throw new IllegalStateException("embedded: " + ex.getMessage());
		}
		return startServer(binary, "embedded-redis 0.9.1 binary (Redis " + EMBEDDED_VERSION + ", " + binary + ")", "embedded");
	}

	private static RedisEndpoint startServer(Path binary, String origin, String label) {
		try {
			RedisServerProcess server = new RedisServerProcess(binary).start();
			return new RedisEndpoint(server.host(), server.port(), origin);
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException(label + ": " + binary + " did not start: " + ex.getMessage());
		}
	}

	/**
	 * The {@code redis-server} named by {@value #BINARY_PROPERTY}, else the first on {@code PATH}.
	 * @throws IllegalStateException saying where it looked
	 */
	static Path pathBinary() {
		String configured = System.getProperty(BINARY_PROPERTY);
		if (configured != null && !configured.isBlank()) {
			Path binary = Path.of(configured.trim());
			if (Files.isRegularFile(binary) && Files.isExecutable(binary)) {
				return binary;
			}
			throw new IllegalStateException(BINARY_PROPERTY + "=" + configured + " is not an executable file");
		}
		String path = Objects.requireNonNullElse(System.getenv("PATH"), "");
		for (String dir : path.split(File.pathSeparator)) {
			try {
				Path candidate = Path.of(dir.isEmpty() ? "." : dir, "redis-server");
				if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
					return candidate;
				}
			}
			catch (InvalidPathException ex) {
				// not a usable PATH entry
			}
		}
		throw new IllegalStateException("no redis-server on PATH (" + path + ")");
	}

	private static String embeddedResource() {
		String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
		String system = os.contains("linux") ? "linux" : (os.contains("mac") || os.contains("darwin")) ? "darwin" : null;
		String cpu = switch (arch) {
			case "amd64", "x86_64" -> "amd64";
			case "aarch64", "arm64" -> "arm64";
			case "x86", "i386", "i486", "i586", "i686" -> "386";
			default -> null;
		};
		if (system == null || cpu == null || (system.equals("darwin") && cpu.equals("386"))) {
			throw new IllegalStateException("embedded-redis ships no binary for " + os + "/" + arch);
		}
		return "/redis-server-" + EMBEDDED_VERSION + "-" + system + "-" + cpu;
	}

	private static Path extract(String resource) {
		try (InputStream in = TestRedis.class.getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("resource " + resource + " not on the class path (is org.signal:embedded-redis a test dependency?)");
			}
			Path dir = Files.createTempDirectory("redis-embedded-");
			Path binary = dir.resolve(resource.substring(1));
			Files.copy(in, binary);
			if (!binary.toFile().setExecutable(true, true)) {
				throw new IllegalStateException("cannot make " + binary + " executable");
			}
			dir.toFile().deleteOnExit();
			binary.toFile().deleteOnExit();
			return binary;
		}
		catch (IOException ex) {
			throw new IllegalStateException("cannot extract " + resource + ": " + ex.getMessage(), ex);
		}
	}

}
