package io.github.redisqueue.testing.redis;

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

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Gives tests a real Redis on any machine. The shared server comes from, in order: the
 * {@code REDIS_URL} environment variable; Testcontainers when a Docker engine is available; a
 * {@code redis-server} on {@code PATH} (or named by the system property
 * {@code redis.server.binary}) started on a free port; the static Redis 7.0.15 binary shipped in
 * {@code org.signal:embedded-redis}. The system property {@code redis.test.source}
 * ({@code url}, {@code docker}, {@code path}, {@code embedded}) forces one source. When none
 * works the tests fail with a message that lists what was tried; nothing is skipped. The system
 * property {@code redis.test.topology} = {@code cluster} starts a local Redis Cluster instead.
 *
 * <p>The library's own tests and applications' tests (through {@code queue-test}) share this
 * class: it depends on Spring Data Redis, Testcontainers and {@code org.signal:embedded-redis},
 * not on the library.
 *
 * @since 0.1.0
 */
public final class TestRedis {

	private static final String EMBEDDED_RESOURCE = "/redis-server-7.0.15-linux-amd64";

	private static RedisEndpoint shared;

	private TestRedis() {
	}

	/** The Redis shared by every test of this JVM, started on first use. */
	public static synchronized RedisEndpoint shared() {
		if (shared == null) {
			shared = isCluster() ? startCluster() : startShared();
			System.err.println("[redis-queue tests] using Redis at " + shared.uri() + " from " + shared.origin());
		}
		return shared;
	}

	/**
	 * Whether the tests run against a Redis Cluster: system property {@code redis.test.topology}
	 * = {@code cluster} (the default, {@code single}, is one server).
	 */
	public static boolean isCluster() {
		String topology = System.getProperty("redis.test.topology", "");
		if (!topology.isEmpty() && !topology.equals("single") && !topology.equals("cluster")) {
			throw new IllegalStateException("redis.test.topology must be 'single' or 'cluster', not '" + topology + "'");
		}
		return topology.equals("cluster");
	}

	private static RedisEndpoint startCluster() {
		RedisClusterProcesses cluster = RedisClusterProcesses.start();
		Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
		RedisServerProcess seed = cluster.masters().get(0);
		return new RedisEndpoint(seed.host(), seed.port(), "local Redis Cluster (3 masters, 3 replicas)",
				cluster.seeds());
	}

	/** System property that tells a worker JVM the nodes of its parent's shared cluster. */
	public static final String CLUSTER_NODES = "redis.test.cluster-nodes";

	/**
	 * The shared cluster, when the tests run against one and it has started.
	 * @return the cluster's endpoint, or empty
	 */
	public static synchronized java.util.Optional<RedisEndpoint> sharedCluster() {
		return (shared != null && shared.isCluster()) ? java.util.Optional.of(shared) : java.util.Optional.empty();
	}

	/**
	 * The endpoint of a server a parent JVM named by host and port: the shared cluster when that
	 * is one of its nodes (see {@link #CLUSTER_NODES}), else a single server.
	 * @param host the host
	 * @param port the port
	 * @param origin where the endpoint came from
	 * @return the endpoint
	 */
	public static RedisEndpoint endpoint(String host, int port, String origin) {
		List<String> nodes = List.of(System.getProperty(CLUSTER_NODES, "").split(","));
		if (nodes.contains(host + ":" + port)) {
			return new RedisEndpoint(host, port, origin, nodes);
		}
		return new RedisEndpoint(host, port, origin);
	}

	/**
	 * The redis-server binary private servers are started from.
	 * @return the binary on {@code PATH}, or the embedded one
	 */
	public static Path serverBinary() {
		Path binary = "embedded".equals(System.getProperty("redis.test.source")) ? null : pathBinary();
		return (binary != null) ? binary : embeddedBinary();
	}

	/**
	 * The {@code spring.data.redis.*} properties that point a Spring Boot application at an
	 * endpoint: host and port, or the cluster's nodes.
	 * @param endpoint the endpoint
	 * @return properties as {@code name=value}
	 */
	public static String[] springProperties(RedisEndpoint endpoint) {
		if (endpoint.isCluster()) {
			return new String[] { "spring.data.redis.cluster.nodes=" + String.join(",", endpoint.clusterNodes()) };
		}
		return new String[] { "spring.data.redis.host=" + endpoint.host(), "spring.data.redis.port=" + endpoint.port() };
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
		return new RedisServerProcess(serverBinary(), extraArgs).start();
	}

	/**
	 * A started connection factory for an endpoint; the caller destroys it.
	 * @param endpoint the endpoint
	 * @return the factory
	 */
	public static LettuceConnectionFactory connectionFactory(RedisEndpoint endpoint) {
		LettuceConnectionFactory factory = endpoint.isCluster()
				? new LettuceConnectionFactory(new RedisClusterConfiguration(endpoint.clusterNodes()))
				: new LettuceConnectionFactory(new RedisStandaloneConfiguration(endpoint.host(), endpoint.port()));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Delete every key of the endpoint.
	 * @param endpoint the endpoint
	 */
	public static void flushAll(RedisEndpoint endpoint) {
		for (String node : masters(endpoint)) {
			try {
				RespClient.call(host(node), port(node), "FLUSHALL");
			}
			catch (IOException ex) {
				throw new IllegalStateException("Cannot FLUSHALL " + node + " (" + endpoint.origin() + "): " + ex.getMessage(), ex);
			}
		}
	}

	/** "host:port" of the endpoint, or of each master of a cluster (replicas refuse writes). */
	private static List<String> masters(RedisEndpoint endpoint) {
		if (!endpoint.isCluster()) {
			return List.of(endpoint.host() + ":" + endpoint.port());
		}
		return endpoint.clusterNodes().stream()
			.filter((node) -> command(host(node), port(node), "INFO", "replication").contains("role:master"))
			.toList();
	}

	private static String host(String node) {
		return node.substring(0, node.lastIndexOf(':'));
	}

	private static int port(String node) {
		return Integer.parseInt(node.substring(node.lastIndexOf(':') + 1));
	}

	/**
	 * Calls per command since the last {@link #resetCommandStats}, from {@code INFO commandstats}
	 * (commands run inside scripts included; INFO and CONFIG themselves left out).
	 * @param endpoint the endpoint
	 * @return calls by lower-case command name (subcommands as {@code config|resetstat})
	 */
	public static Map<String, Long> commandStats(RedisEndpoint endpoint) {
		Map<String, Long> calls = new TreeMap<>();
		for (String node : masters(endpoint)) {
			addCommandStats(calls, command(host(node), port(node), "INFO", "commandstats"));
		}
		return calls;
	}

	private static void addCommandStats(Map<String, Long> calls, String info) {
		for (String line : info.split("\r?\n")) {
			// cmdstat_evalsha:calls=4,usec=680,...
			if (line.startsWith("cmdstat_")) {
				String name = line.substring("cmdstat_".length(), line.indexOf(':'));
				String rest = line.substring(line.indexOf("calls=") + "calls=".length());
				if (!name.equals("info") && !name.startsWith("config")) {
					calls.merge(name, Long.parseLong(rest.substring(0, rest.indexOf(','))), Long::sum);
				}
			}
		}
	}

	/**
	 * Reset the command statistics ({@code CONFIG RESETSTAT}).
	 * @param endpoint the endpoint
	 */
	public static void resetCommandStats(RedisEndpoint endpoint) {
		for (String node : masters(endpoint)) {
			command(host(node), port(node), "CONFIG", "RESETSTAT");
		}
	}

	private static String command(String host, int port, String... args) {
		try {
			return RespClient.call(host, port, args);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot run " + String.join(" ", args) + " on redis://" + host + ":" + port
					+ ": " + ex.getMessage(), ex);
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
