package io.github.redisqueue.core;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Engine-wide settings of a {@link QueueTemplate}. Immutable; start from {@link #defaults()} and
 * change with the {@code with...} methods, each of which checks its value.
 *
 * @param keyPrefix prefix of every Redis key (default {@code rq})
 * @param workerId identity recorded on leases this process holds (default {@code host:pid})
 * @param maxPayloadBytes largest serialized payload accepted at enqueue (default 1 MiB)
 * @param defaultMaxAttempts attempts a job gets when its options name none (default 3)
 * @param completedRetention how long completed jobs are kept; zero deletes them at once (default)
 * @param deadRetention how long dead jobs are kept; zero keeps them until purged (default 7 days)
 * @param reclaimBatch most expired leases a single reserve call takes back (default 100)
 * @param reapBatch most jobs a reaper pass handles per step (default 1,000)
 * @param enqueueChunk most jobs sent in one script call by a bulk enqueue (default 500)
 * @since 0.1.0
 */
public record QueueSettings(String keyPrefix, String workerId, int maxPayloadBytes, int defaultMaxAttempts,
		Duration completedRetention, Duration deadRetention, int reclaimBatch, int reapBatch, int enqueueChunk) {

	/** Default key prefix. */
	public static final String DEFAULT_KEY_PREFIX = "rq";

	/** Default largest payload: 1 MiB. */
	public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

	/** Default attempts per job. */
	public static final int DEFAULT_MAX_ATTEMPTS = 3;

	/** Largest reclaim and reap batch: bounds the work of one script call. */
	public static final int MAX_BATCH = 10_000;

	/** Default retention of dead jobs. */
	public static final Duration DEFAULT_DEAD_RETENTION = Duration.ofDays(7);

	public QueueSettings {
		QueueNames.validatePrefix(keyPrefix);
		if (workerId.isBlank() || workerId.length() > 200 || workerId.indexOf('#') >= 0) {
			throw new IllegalArgumentException("Worker id '" + workerId
					+ "' is invalid: it must have 1 to 200 characters and no '#' (it separates the worker from the listener in lease identities)");
		}
		positive("Max payload size", maxPayloadBytes);
		if (defaultMaxAttempts < 1 || defaultMaxAttempts > JobOptions.MAX_ATTEMPTS_LIMIT) {
			throw new IllegalArgumentException("Default max attempts " + defaultMaxAttempts
					+ " is out of range: it must be from 1 to " + JobOptions.MAX_ATTEMPTS_LIMIT);
		}
		notNegative("Completed-job retention", completedRetention);
		notNegative("Dead-job retention", deadRetention);
		batch("Reclaim batch", reclaimBatch);
		batch("Reap batch", reapBatch);
		positive("Enqueue chunk", enqueueChunk);
	}

	/** The default settings, with a worker id made of host name and process id. */
	public static QueueSettings defaults() {
		return new QueueSettings(DEFAULT_KEY_PREFIX, defaultWorkerId(), DEFAULT_MAX_PAYLOAD_BYTES, DEFAULT_MAX_ATTEMPTS,
				Duration.ZERO, DEFAULT_DEAD_RETENTION, 100, 1000, 500);
	}

	/**
	 * {@code host:pid} of this JVM. The host is the local host name; when it cannot be resolved
	 * (or is only {@code localhost}) the {@code HOSTNAME} environment variable (set in containers
	 * and pods); failing both, {@code unknown-} and a random suffix. A fixed fallback such as
	 * {@code localhost} would give two containers whose process id is 1 the same identity, and the
	 * start of each would take back the other's leases; a random one is unique, at the cost that a
	 * restart does not take back its predecessor's leases at once (they return when the old
	 * identity is found silent or its leases run out). Set {@code workerId} explicitly for a stable
	 * identity.
	 */
	public static String defaultWorkerId() {
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

	public QueueSettings withKeyPrefix(String keyPrefix) {
		return new QueueSettings(keyPrefix, this.workerId, this.maxPayloadBytes, this.defaultMaxAttempts,
				this.completedRetention, this.deadRetention, this.reclaimBatch, this.reapBatch, this.enqueueChunk);
	}

	public QueueSettings withWorkerId(String workerId) {
		return new QueueSettings(this.keyPrefix, workerId, this.maxPayloadBytes, this.defaultMaxAttempts,
				this.completedRetention, this.deadRetention, this.reclaimBatch, this.reapBatch, this.enqueueChunk);
	}

	public QueueSettings withMaxPayloadBytes(int maxPayloadBytes) {
		return new QueueSettings(this.keyPrefix, this.workerId, maxPayloadBytes, this.defaultMaxAttempts,
				this.completedRetention, this.deadRetention, this.reclaimBatch, this.reapBatch, this.enqueueChunk);
	}

	public QueueSettings withDefaultMaxAttempts(int defaultMaxAttempts) {
		return new QueueSettings(this.keyPrefix, this.workerId, this.maxPayloadBytes, defaultMaxAttempts,
				this.completedRetention, this.deadRetention, this.reclaimBatch, this.reapBatch, this.enqueueChunk);
	}

	public QueueSettings withCompletedRetention(Duration completedRetention) {
		return new QueueSettings(this.keyPrefix, this.workerId, this.maxPayloadBytes, this.defaultMaxAttempts,
				completedRetention, this.deadRetention, this.reclaimBatch, this.reapBatch, this.enqueueChunk);
	}

	public QueueSettings withDeadRetention(Duration deadRetention) {
		return new QueueSettings(this.keyPrefix, this.workerId, this.maxPayloadBytes, this.defaultMaxAttempts,
				this.completedRetention, deadRetention, this.reclaimBatch, this.reapBatch, this.enqueueChunk);
	}

	public QueueSettings withReclaimBatch(int reclaimBatch) {
		return new QueueSettings(this.keyPrefix, this.workerId, this.maxPayloadBytes, this.defaultMaxAttempts,
				this.completedRetention, this.deadRetention, reclaimBatch, this.reapBatch, this.enqueueChunk);
	}

	public QueueSettings withReapBatch(int reapBatch) {
		return new QueueSettings(this.keyPrefix, this.workerId, this.maxPayloadBytes, this.defaultMaxAttempts,
				this.completedRetention, this.deadRetention, this.reclaimBatch, reapBatch, this.enqueueChunk);
	}

	public QueueSettings withEnqueueChunk(int enqueueChunk) {
		return new QueueSettings(this.keyPrefix, this.workerId, this.maxPayloadBytes, this.defaultMaxAttempts,
				this.completedRetention, this.deadRetention, this.reclaimBatch, this.reapBatch, enqueueChunk);
	}

	private static void batch(String what, int value) {
		if (value < 1 || value > MAX_BATCH) {
			throw new IllegalArgumentException(
					what + " " + value + " is out of range: it must be from 1 to " + MAX_BATCH);
		}
	}

	private static void positive(String what, int value) {
		if (value <= 0) {
			throw new IllegalArgumentException(what + " " + value + " must be positive");
		}
	}

	private static void notNegative(String what, Duration value) {
		if (value.isNegative()) {
			throw new IllegalArgumentException(what + " " + value + " must not be negative");
		}
	}

}
