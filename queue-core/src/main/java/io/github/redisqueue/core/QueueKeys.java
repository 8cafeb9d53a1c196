package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The Redis keys of one queue. Every key shares the hash tag {@code {prefix:queue}}, so each
 * script touches one cluster slot and queues spread over a cluster.
 *
 * @since 0.1.0
 */
final class QueueKeys {

	/** Version of the key layout, recorded under {@code <prefix>:layout}. */
	public static final String LAYOUT_VERSION = "2";

	private final String queue;

	private final String base;

	private final List<byte[]> scriptKeys;

	private final byte[] jobPrefix;

	private final byte[] uniquePrefix;

	QueueKeys(String prefix, String queue) {
		this.queue = QueueNames.validate(queue);
		this.base = "{" + prefix + ":" + queue + "}:";
		this.scriptKeys = List.of(bytes("ready"), bytes("delayed"), bytes("inflight"), bytes("dead"), bytes("done"),
				bytes("expiry"), bytes("wake"), bytes("seq"), bytes("paused"), bytes("stats"), bytes("woken"), bytes("live"));
		this.jobPrefix = bytes("job:");
		this.uniquePrefix = bytes("unique:");
	}

	/** The queue name. */
	public String queue() {
		return this.queue;
	}

	/** Full name of one of the queue's keys, for example {@code key("ready")}. */
	public String key(String suffix) {
		return this.base + suffix;
	}

	/** Full name of a job's hash. */
	public String jobKey(String id) {
		return this.base + "job:" + id;
	}

	/** Full name of the key holding a job's result. */
	public String resultKey(String id) {
		return this.base + "result:" + id;
	}

	/** Name of the pub/sub channel on which the ids of finished batches are published. */
	public String batchChannel() {
		return this.base + "batches";
	}

	List<byte[]> scriptKeys() {
		return this.scriptKeys;
	}

	byte[] jobPrefix() {
		return this.jobPrefix;
	}

	byte[] uniquePrefix() {
		return this.uniquePrefix;
	}

	byte[] wake() {
		return this.scriptKeys.get(6);
	}

	byte[] woken() {
		return this.scriptKeys.get(10);
	}

	byte[] paused() {
		return this.scriptKeys.get(8);
	}

	byte[] live() {
		return this.scriptKeys.get(11);
	}

	private byte[] bytes(String suffix) {
		return (this.base + suffix).getBytes(StandardCharsets.UTF_8);
	}

	/** Key of the registry of queue names (outside every queue's hash tag). */
	static String registryKey(String prefix) {
		return prefix + ":queues";
	}

	/** Key holding the layout version. */
	static String layoutKey(String prefix) {
		return prefix + ":layout";
	}

	/**
	 * Key of the sorted set of live workers; its hash tag is shared by every key of the worker
	 * registry. {@code ~} never occurs in a queue name, so no queue's keys can fall in the
	 * registry's namespace.
	 */
	static String workersKey(String prefix) {
		return "{" + prefix + ":~workers}";
	}

	/** Common start of the names of the workers' hashes. */
	static String workerKeyPrefix(String prefix) {
		return workersKey(prefix) + ":";
	}

	/** Key of one worker's hash. */
	static String workerKey(String prefix, String workerId) {
		return workerKeyPrefix(prefix) + workerId;
	}

	/** Key of the sorted set of silent workers; never of the form of a worker's hash. */
	static String silentWorkersKey(String prefix) {
		return workersKey(prefix) + ".silent";
	}

}
