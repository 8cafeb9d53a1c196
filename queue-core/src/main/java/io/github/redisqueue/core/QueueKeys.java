package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The Redis keys of one queue. Every key shares the hash tag {@code {prefix:queue}}, so each
 * script touches one cluster slot and queues spread over a cluster. A fixed set of keys holds all
 * of a queue's data, so every script is given every key it touches ({@link #scriptKeys()}); the
 * only keys named after data are idempotency keys (given to the enqueue script as well) and job
 * results (read and written outside scripts).
 *
 * @since 0.1.0
 */
final class QueueKeys {

	/** Version of the key layout, recorded under {@code <prefix>:layout}. */
	public static final String LAYOUT_VERSION = "3";

	/** How many keys {@link #scriptKeys()} holds; a script's further keys follow them. */
	static final int SCRIPT_KEYS = 22;

	private final String queue;

	private final String base;

	private final List<byte[]> scriptKeys;

	private final byte[] channel;

	QueueKeys(String prefix, String queue) {
		this.queue = QueueNames.validate(queue);
		this.base = "{" + prefix + ":" + queue + "}:";
		this.scriptKeys = List.of(bytes("ready"), bytes("delayed"), bytes("inflight"), bytes("dead"), bytes("done"),
				bytes("expiry"), bytes("wake"), bytes("seq"), bytes("paused"), bytes("stats"), bytes("woken"), bytes("live"),
				bytes("jobs"), bytes("payloads"), bytes("unique"), bytes("unique:until"), bytes("batches"),
				bytes("batches:done"), bytes("gates"), bytes("gates:wait"), bytes("batches:jobs"),
				bytes("batches:until"));
		this.channel = bytes("batches");
	}

	/** The queue name. */
	public String queue() {
		return this.queue;
	}

	/** Full name of one of the queue's keys, for example {@code key("ready")}. */
	public String key(String suffix) {
		return this.base + suffix;
	}

	/** Full name of the key holding the job of an idempotency key. */
	String idempotencyKey(String key) {
		return this.base + "idem:" + key;
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

	/** Name of the pub/sub channel of finished batches, as the scripts' first argument. */
	byte[] channel() {
		return this.channel;
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

	/** Key of the hash of the workers' descriptions, by worker id. */
	static String workerInfoKey(String prefix) {
		return workersKey(prefix) + ".info";
	}

	/** Key of the sorted set of silent workers. */
	static String silentWorkersKey(String prefix) {
		return workersKey(prefix) + ".silent";
	}

}
