package io.github.redisqueue.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Reads, once at startup, the Redis settings the queues' guarantees depend on and logs a
 * warning that names the risk when they do not hold:
 * <ul>
 * <li>{@code maxmemory-policy} other than {@code noeviction}: under memory pressure Redis may
 * delete queue keys (jobs lost, ids reused);</li>
 * <li>neither the append-only file nor RDB snapshots on: a restart of Redis loses every
 * queue.</li>
 * </ul>
 * The settings come from {@code CONFIG GET}, or from {@code INFO memory} and
 * {@code INFO persistence} where CONFIG is not allowed (managed Redis services, ACL users
 * without it; INFO does not show the snapshot schedule). The check runs on a daemon thread of
 * its own, so a Redis that is down or hangs never delays startup; then it logs at DEBUG and
 * the application goes on. {@code queue.redis-check.enabled=false} switches it off.
 */
final class RedisConfigurationCheck implements SmartInitializingSingleton, DisposableBean {

	private static final Logger logger = LoggerFactory.getLogger(RedisConfigurationCheck.class);

	private final RedisConnectionFactory connectionFactory;

	private final CompletableFuture<Report> report = new CompletableFuture<>();

	private volatile @Nullable Future<?> check;

	RedisConfigurationCheck(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("queue-redis-check-");
		executor.setDaemon(true);
		this.check = executor.submit(this::run);
	}

	@Override
	public void destroy() {
		Future<?> check = this.check;
		if (check != null) {
			check.cancel(true);
		}
	}

	/** What the check found, once it ran. */
	CompletableFuture<Report> report() {
		return this.report;
	}

	private void run() {
		try {
			Report found = read();
			found.warnings().forEach(logger::warn);
			found.notes().forEach(logger::info);
			logger.debug("Redis settings of the queues (from {}): maxmemory-policy {}, appendonly {}, appendfsync {}, save '{}'",
					found.source(), found.maxmemoryPolicy(), found.appendonly(), found.appendfsync(), found.save());
			this.report.complete(found);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not check the Redis settings of the queues (Redis did not answer): {}", ex.toString());
			this.report.complete(Report.unavailable(ex.toString()));
		}
	}

	private Report read() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			try {
				return fromConfig(connection);
			}
			catch (RuntimeException ex) {
				if (ex instanceof RedisConnectionFailureException || ex instanceof QueryTimeoutException) {
					throw ex;
				}
				logger.debug("CONFIG GET refused ({}); reading INFO instead", ex.getMessage());
				return fromInfo(connection);
			}
		}
	}

	private static Report fromConfig(RedisConnection connection) {
		String policy = value(connection.serverCommands().getConfig("maxmemory-policy"), "maxmemory-policy");
		String appendonly = value(connection.serverCommands().getConfig("appendonly"), "appendonly");
		String appendfsync = value(connection.serverCommands().getConfig("appendfsync"), "appendfsync");
		String save = value(connection.serverCommands().getConfig("save"), "save");
		List<String> warnings = new ArrayList<>();
		evictionWarning(policy).ifPresent(warnings::add);
		if ("no".equalsIgnoreCase(appendonly) && save != null && save.isBlank()) {
			warnings.add("The queues' Redis persists nothing (appendonly no, save ''): a restart of Redis loses "
					+ "every queue and every job. Turn on the append-only file (appendonly yes, appendfsync "
					+ "everysec or always) or RDB snapshots (save). Set queue.redis-check.enabled=false to "
					+ "skip this check.");
		}
		return new Report("CONFIG GET", policy, appendonly, appendfsync, save, warnings, List.of());
	}

	private static Report fromInfo(RedisConnection connection) {
		String policy = value(connection.serverCommands().info("memory"), "maxmemory_policy");
		String aof = value(connection.serverCommands().info("persistence"), "aof_enabled");
		String appendonly = (aof != null) ? ("1".equals(aof) ? "yes" : "no") : null;
		List<String> warnings = new ArrayList<>();
		evictionWarning(policy).ifPresent(warnings::add);
		List<String> notes = new ArrayList<>();
		if ("no".equals(appendonly)) {
			notes.add("The queues' Redis has no append-only file (INFO persistence: aof_enabled:0) and does not "
					+ "allow CONFIG GET, so whether RDB snapshots are on is unknown: without either, a restart of "
					+ "Redis loses every queue. Check the persistence settings of the Redis service.");
		}
		return new Report("INFO", policy, appendonly, null, null, warnings, notes);
	}

	private static Optional<String> evictionWarning(@Nullable String policy) {
		if (policy == null || policy.equalsIgnoreCase("noeviction")) {
			return Optional.empty();
		}
		return Optional.of("The queues' Redis may evict keys (maxmemory-policy " + policy
				+ "): under memory pressure it can delete queue keys, losing jobs and reusing job ids. Set "
				+ "maxmemory-policy noeviction (Redis then refuses writes when full instead). Set "
				+ "queue.redis-check.enabled=false to skip this check.");
	}

	/**
	 * The value of a setting, or {@code null} when the reply lacks it. A cluster connection
	 * answers for every node, with keys prefixed by the node: then the least safe value wins.
	 */
	private static @Nullable String value(@Nullable Properties properties, String key) {
		if (properties == null) {
			return null;
		}
		String found = null;
		for (String name : properties.stringPropertyNames()) {
			if (name.equals(key) || name.endsWith("." + key)) {
				String value = properties.getProperty(name).trim();
				if (found == null || isRiskier(key, value, found)) {
					found = value;
				}
			}
		}
		return found;
	}

	private static boolean isRiskier(String key, String value, String current) {
		return switch (key) {
			case "maxmemory-policy", "maxmemory_policy" -> !value.equalsIgnoreCase("noeviction");
			case "appendonly" -> value.equalsIgnoreCase("no");
			case "aof_enabled" -> value.equals("0");
			case "save" -> value.isBlank();
			default -> false;
		};
	}

	/**
	 * What the check read and what it concluded.
	 *
	 * @param source where the settings came from: {@code CONFIG GET}, {@code INFO}, or
	 * {@code unavailable} when Redis did not answer
	 * @param maxmemoryPolicy the eviction policy, when known
	 * @param appendonly {@code yes} or {@code no}, when known
	 * @param appendfsync the AOF fsync policy, when known
	 * @param save the RDB snapshot schedule ({@code ""} for none), when known
	 * @param warnings the warnings logged
	 * @param notes the information logged
	 */
	record Report(String source, @Nullable String maxmemoryPolicy, @Nullable String appendonly,
			@Nullable String appendfsync, @Nullable String save, List<String> warnings, List<String> notes) {

		static Report unavailable(String reason) {
			return new Report("unavailable", null, null, null, null, List.of(), List.of(reason));
		}

	}

}
