package io.github.redisqueue.core.script;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.github.redisqueue.core.QueueNames;
import io.lettuce.core.cluster.SlotHash;

/**
 * The Redis keys of one queue. Every key shares the hash tag {@code {prefix:queue}}, so each
 * script touches one cluster slot and queues spread over a cluster. A fixed set of keys holds all
 * of a queue's data, so every script is given every key it touches ({@link #scriptKeys()}); the
 * only keys named after data are idempotency keys (given to the enqueue script as well) and job
 * results (read and written outside scripts).
 *
 * @since 0.1.0
 */
public final class QueueKeys {

	private static final int SLOTS = 16384;

	/** Version of the key layout, recorded under {@code <prefix>:layout}. */
	public static final String LAYOUT_VERSION = "5";

	/** How many keys {@link #scriptKeys()} holds; a script's further keys follow them. */
	public static final int SCRIPT_KEYS = 23;

	/** Separates a queue's name from a partition's index in the name of a partition. */
	public static final char PARTITION_MARK = '~';

	private final String queue;

	private final int partition;

	private final int partitions;

	private final String base;

	private final byte[] idForm;

	private final List<byte[]> scriptKeys;

	private final byte[] channel;

	public QueueKeys(String prefix, String queue) {
		this(prefix, queue, 0, 1);
	}

	/**
	 * The keys of one partition of a queue spread over {@code partitions} partitions (of the
	 * queue itself when that is 1). A partition's hash tag is chosen so that its slot lies in the
	 * middle of the partition's share of the slot range: on a cluster whose masters hold equal
	 * runs of slots, as {@code redis-cli --cluster create} assigns them, the partitions of a queue
	 * sit on as many masters as they can. Partition {@code i}'s job ids are {@code i} modulo the
	 * partition count ({@link #idForm()}), so an id names its partition.
	 */
	public QueueKeys(String prefix, String queue, int partition, int partitions) {
		this.queue = QueueNames.validate(queue);
		if (partitions < 1 || partition < 0 || partition >= partitions) {
			throw new IllegalArgumentException("Partition " + partition + " of " + partitions + " is invalid");
		}
		this.partition = partition;
		this.partitions = partitions;
		this.base = "{" + ((partitions == 1) ? prefix + ":" + queue : partitionTag(prefix, queue, partition, partitions))
				+ "}:";
		this.idForm = (partitions == 1) ? ScriptReplies.EMPTY
				: (partitions + ":" + partition).getBytes(StandardCharsets.US_ASCII);
		this.scriptKeys = List.of(bytes("ready"), bytes("delayed"), bytes("inflight"), bytes("dead"), bytes("done"),
				bytes("expiry"), bytes("wake"), bytes("seq"), bytes("paused"), bytes("stats"), bytes("woken"), bytes("live"),
				bytes("jobs"), bytes("ready:plain"), bytes("unique"), bytes("unique:until"), bytes("batches"),
				bytes("batches:done"), bytes("gates"), bytes("gates:wait"), bytes("batches:jobs"),
				bytes("batches:until"), bytes("history"));
		this.channel = bytes("batches");
	}

	/** The queue name (of the whole queue, for a partition). */
	public String queue() {
		return this.queue;
	}

	/** The partition's name: the queue name, or for a partition {@code queue~index}. */
	public String name() {
		return (this.partitions == 1) ? this.queue : this.queue + PARTITION_MARK + this.partition;
	}

	/** How many partitions the queue has (1 when it is not partitioned). */
	public int partitionCount() {
		return this.partitions;
	}

	/** The index of this partition (0 for a queue that is not partitioned). */
	public int partition() {
		return this.partition;
	}

	/** The hash tag shared by the keys, without braces. */
	public String hashTag() {
		return this.base.substring(1, this.base.length() - 2);
	}

	/**
	 * How the scripts form job ids, as their second argument: empty for a queue of one partition,
	 * {@code count:index} for a partition (ids are the sequence times the count plus the index).
	 */
	public byte[] idForm() {
		return this.idForm;
	}

	/** Name of the channel on which a partition's scripts announce that a job may be ready. */
	public byte[] wakeChannel() {
		return wake();
	}

	/**
	 * The hash tag of partition {@code partition} of {@code partitions}: {@code prefix:queue~index},
	 * followed by {@code -n} for the smallest n that puts its slot in the middle half of the
	 * partition's share of the 16384 slots.
	 */
	public static String partitionTag(String prefix, String queue, int partition, int partitions) {
		String tag = prefix + ":" + queue + PARTITION_MARK + partition;
		double share = SLOTS / (double) partitions;
		int low = (int) Math.ceil(share * partition + share / 4);
		int high = (int) Math.floor(share * partition + share * 3 / 4);
		for (int n = 0; n < 100_000; n++) {
			String candidate = (n == 0) ? tag : tag + "-" + n;
			int slot = SlotHash.getSlot(candidate);
			if (slot >= low && slot <= high) {
				return candidate;
			}
		}
		return tag;
	}

	/** Full name of one of the queue's keys, for example {@code key("ready")}. */
	public String key(String suffix) {
		return this.base + suffix;
	}

	/** Full name of the key holding the job of an idempotency key. */
	public String idempotencyKey(String key) {
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

	public List<byte[]> scriptKeys() {
		return this.scriptKeys;
	}

	/** Name of the pub/sub channel of finished batches, as the scripts' first argument. */
	public byte[] channel() {
		return this.channel;
	}

	public byte[] wake() {
		return this.scriptKeys.get(6);
	}

	public byte[] woken() {
		return this.scriptKeys.get(10);
	}

	public byte[] paused() {
		return this.scriptKeys.get(8);
	}

	public byte[] live() {
		return this.scriptKeys.get(11);
	}

	/** The hash of job records and payloads ({@code K_JOBS}); a job's payload is its field {@code <id>:p}. */
	public byte[] jobs() {
		return this.scriptKeys.get(12);
	}

	private byte[] bytes(String suffix) {
		return (this.base + suffix).getBytes(StandardCharsets.UTF_8);
	}

	/** Key of the registry of queue names (outside every queue's hash tag). */
	public static String registryKey(String prefix) {
		return prefix + ":queues";
	}

	/** Key of the hash of the partition counts of partitioned queues, by queue name. */
	public static String partitionsKey(String prefix) {
		return prefix + ":partitions";
	}

	/** Key holding the layout version. */
	public static String layoutKey(String prefix) {
		return prefix + ":layout";
	}

	/**
	 * Key of the sorted set of live workers; its hash tag is shared by every key of the worker
	 * registry. {@code ~} never occurs in a queue name, so no queue's keys can fall in the
	 * registry's namespace.
	 */
	public static String workersKey(String prefix) {
		return "{" + prefix + ":~workers}";
	}

	/** Key of the hash of the workers' descriptions, by worker id. */
	public static String workerInfoKey(String prefix) {
		return workersKey(prefix) + ".info";
	}

	/** Key of the sorted set of silent workers. */
	public static String silentWorkersKey(String prefix) {
		return workersKey(prefix) + ".silent";
	}

}
