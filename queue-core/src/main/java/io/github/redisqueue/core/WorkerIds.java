package io.github.redisqueue.core;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * The rules for worker ids and lease identities. A worker id is 1 to 200 characters without
 * {@code '#'}; a lease identity (recorded on each lease a consumer holds) is a worker id, alone
 * or followed by {@code '#'} and anything (a listener's id), up to 400 characters. So the worker
 * of a lease is exactly its identity up to the first {@code '#'}, which the reaper relies on to
 * take back the jobs of a silent worker and of no other.
 *
 * @since 0.1.0
 */
public final class WorkerIds {

	/** Longest worker id. */
	public static final int MAX_LENGTH = 200;

	/** Longest lease identity. */
	public static final int MAX_IDENTITY_LENGTH = 400;

	private WorkerIds() {
	}

	/**
	 * Check a worker id.
	 * @param workerId the worker id
	 * @return the worker id
	 * @throws IllegalArgumentException naming the value and the rule it breaks
	 */
	public static String validate(@Nullable String workerId) {
		if (workerId == null || workerId.isBlank() || workerId.length() > MAX_LENGTH || workerId.indexOf('#') >= 0) {
			throw new IllegalArgumentException("Worker id '" + workerId + "' is invalid: it must have 1 to " + MAX_LENGTH
					+ " characters and no '#' (it separates the worker from the listener in lease identities)");
		}
		return workerId;
	}

	/**
	 * Check a lease identity: a valid worker id, optionally followed by {@code '#'} and more.
	 * @param identity the lease identity
	 * @return the identity
	 * @throws IllegalArgumentException naming the value and the rule it breaks
	 */
	public static String validateIdentity(@Nullable String identity) {
		if (identity == null || identity.length() > MAX_IDENTITY_LENGTH) {
			throw new IllegalArgumentException("Lease identity '" + identity + "' is invalid: it must have 1 to "
					+ MAX_IDENTITY_LENGTH + " characters");
		}
		int hash = identity.indexOf('#');
		String worker = (hash >= 0) ? identity.substring(0, hash) : identity;
		if (worker.isBlank() || worker.length() > MAX_LENGTH) {
			throw new IllegalArgumentException("Lease identity '" + identity + "' is invalid: it must start with a "
					+ "worker id of 1 to " + MAX_LENGTH + " characters, alone or followed by '#' and a listener id");
		}
		return identity;
	}

	/** {@code host:pid} of this JVM; see {@link QueueSettings#defaultWorkerId()}. */
	static String defaultWorkerId() {
		String host;
		try {
			host = InetAddress.getLocalHost().getHostName();
		}
		catch (Exception ex) {
			host = null;
		}
		return defaultWorkerId(host, System.getenv("HOSTNAME"), ManagementFactory.getRuntimeMXBean().getPid());
	}

	static String defaultWorkerId(@Nullable String resolvedHost, @Nullable String hostVariable, long pid) {
		String host = isDistinctive(resolvedHost) ? resolvedHost
				: isDistinctive(hostVariable) ? hostVariable
						: "unknown-" + Long.toHexString(new SecureRandom().nextLong() & 0xffffffffffL);
		host = host.strip().replace('#', '-');
		if (host.length() > 150) {
			host = host.substring(0, 150);
		}
		return host + ":" + pid;
	}

	private static boolean isDistinctive(@Nullable String host) {
		if (host == null || host.isBlank()) {
			return false;
		}
		String name = host.strip().toLowerCase(Locale.ROOT);
		return !name.equals("localhost") && !name.startsWith("localhost.");
	}

}
