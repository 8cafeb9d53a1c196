package io.github.redisqueue.core.script;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redisqueue.QueueException;
import org.jspecify.annotations.Nullable;

import static io.github.redisqueue.core.script.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;

/**
 * The registry of queue names under a key prefix, and the check of the layout version the data
 * under that prefix was written with; each done once per queue and per template. The layout is
 * checked before the template's first script call, whatever the call (a worker's first reserve, an
 * operator's first page or count), and a prefix of layout {@value LayoutMigration#FROM} is migrated
 * then; registering a queue (its first enqueue, batch or schedule) also records the layout of a
 * prefix that has none yet.
 */
public final class QueueRegistration {

	private final QueueScriptExecutor executor;

	private final String prefix;

	private final Set<String> registered = ConcurrentHashMap.newKeySet();

	private volatile boolean layoutChecked;

	private volatile boolean opened;

	public QueueRegistration(QueueScriptExecutor executor, String prefix) {
		this.executor = executor;
		this.prefix = prefix;
		executor.beforeFirstUse(this::open);
	}

	/**
	 * Before the template's first script call: migrates a prefix of layout {@value LayoutMigration#FROM}
	 * (in short script calls, see {@link LayoutMigration}) and refuses one of another layout. A
	 * prefix without a layout is left so (nothing is written): the first registration records it.
	 * Threads of this template that arrive meanwhile wait for the migration; other instances may
	 * migrate at the same time (each record moves once).
	 */
	public void open() {
		if (this.opened) {
			return;
		}
		synchronized (this) {
			if (this.opened) {
				return;
			}
			byte[] found = this.executor.redis().opsForValue().get(encodeUtf8(QueueKeys.layoutKey(this.prefix)));
			if (found != null) {
				accept(new String(found, StandardCharsets.UTF_8));
			}
			this.opened = true;
		}
	}

	public void register(QueueKeys k) {
		if (this.registered.contains(k.queue())) {
			return;
		}
		checkLayout();
		checkPartitions(k);
		this.executor.redis()
			.opsForSet()
			.add(encodeUtf8(QueueKeys.registryKey(this.prefix)), encodeUtf8(k.queue()));
		this.registered.add(k.queue());
	}

	/**
	 * Refuses a queue whose partition count differs from the one recorded in Redis: its jobs would
	 * sit in keys no one reads. The count of a partitioned queue is recorded when it is first used
	 * (in the hash {@code <prefix>:partitions}); a queue of one partition records nothing, and one
	 * that holds jobs cannot become partitioned.
	 */
	private void checkPartitions(QueueKeys k) {
		byte[] key = encodeUtf8(QueueKeys.partitionsKey(this.prefix));
		byte[] field = encodeUtf8(k.queue());
		int count = k.partitionCount();
		byte[] found = this.executor.redis().<byte[], byte[]>opsForHash().get(key, field);
		if (found == null && count > 1) {
			for (byte[] held : heldKeys(k)) {
				if (Boolean.TRUE.equals(this.executor.redis().hasKey(held))) {
					throw heldAsOne(k);
				}
			}
			this.executor.redis().<byte[], byte[]>opsForHash().putIfAbsent(key, field, encodeAscii(Integer.toString(count)));
			found = this.executor.redis().<byte[], byte[]>opsForHash().get(key, field);
		}
		checkRecorded(k, found);
	}

	/**
	 * The keys of a queue of one partition whose presence keeps the queue from becoming
	 * partitioned: its job records and its plain ready list.
	 */
	public List<byte[]> heldKeys(QueueKeys k) {
		QueueKeys whole = new QueueKeys(this.prefix, k.queue());
		return List.of(encodeUtf8(whole.key("jobs")), encodeUtf8(whole.key("ready:plain")));
	}

	/** The refusal of a queue to be partitioned while it holds jobs as a queue of one partition. */
	public static QueueException heldAsOne(QueueKeys k) {
		return new QueueException("Queue '" + k.queue() + "' holds jobs as a queue of one partition; it cannot be "
				+ "spread over " + k.partitionCount() + " partitions until they are done (or use another queue name)");
	}

	/** Refuses a partition count that differs from the one {@code found} in Redis (none: one partition). */
	public void checkRecorded(QueueKeys k, byte @Nullable [] found) {
		int count = k.partitionCount();
		int recorded = (found != null) ? Integer.parseInt(new String(found, StandardCharsets.US_ASCII)) : 1;
		if (recorded != count) {
			throw new QueueException("Queue '" + k.queue() + "' is spread over " + recorded + " partition(s) in Redis, "
					+ "but this application configures " + count + " (queue.queues." + k.queue() + ".partitions): a queue "
					+ "keeps its partition count for as long as it holds jobs; configure " + recorded + ", or drain the "
					+ "queue and remove its field from the hash '" + QueueKeys.partitionsKey(this.prefix) + "'");
		}
	}

	/** The key prefix of the queues. */
	public String prefix() {
		return this.prefix;
	}

	/**
	 * Migrates the prefix if it holds layout {@value LayoutMigration#FROM} now, whether or not
	 * {@link #open()} ran before (an instance of the old layout may have written its version
	 * since): what the blocking registration does when it finds that layout.
	 */
	public synchronized void migrateFound() {
		byte[] found = this.executor.redis().opsForValue().get(encodeUtf8(QueueKeys.layoutKey(this.prefix)));
		if (found != null) {
			accept(new String(found, StandardCharsets.UTF_8));
		}
		this.opened = true;
	}

	/** Whether the layout was checked before a first script call (see {@link #open()}). */
	public boolean isOpened() {
		return this.opened;
	}

	/** Records that the layout found under the prefix was accepted as it is, by a caller of its own. */
	public void opened() {
		this.opened = true;
	}

	/** Whether a queue is recorded in the registry already by this template. */
	public boolean isRegistered(String queue) {
		return this.registered.contains(queue);
	}

	/** Records that a queue is in the registry (its layout and partitions checked) by a caller of its own. */
	public void registered(String queue) {
		this.layoutChecked = true;
		this.opened = true;
		this.registered.add(queue);
	}

	/**
	 * Whether the layout {@code version} found under the prefix needs the migration of
	 * {@link #open()}; refuses a version this library does not read.
	 */
	public boolean needsMigration(String version) {
		if (LayoutMigration.FROM.equals(version)) {
			return true;
		}
		if (!QueueKeys.LAYOUT_VERSION.equals(version)) {
			throw new QueueException("Redis holds queue layout version " + version + " under key prefix '"
					+ this.prefix + "', but this library writes version " + QueueKeys.LAYOUT_VERSION
					+ "; migrate the data or use another key prefix");
		}
		return false;
	}

	private void checkLayout() {
		if (this.layoutChecked) {
			return;
		}
		synchronized (this) {
			if (this.layoutChecked) {
				return;
			}
			byte[] key = encodeUtf8(QueueKeys.layoutKey(this.prefix));
			Boolean created = this.executor.redis().opsForValue().setIfAbsent(key, encodeAscii(QueueKeys.LAYOUT_VERSION));
			if (!Boolean.TRUE.equals(created)) {
				byte[] found = this.executor.redis().opsForValue().get(key);
				accept((found != null) ? new String(found, StandardCharsets.UTF_8) : QueueKeys.LAYOUT_VERSION);
			}
			this.layoutChecked = true;
			this.opened = true;
		}
	}

	/** Takes data of the layout found: migrates layout 4 (then records the current one), refuses others. */
	private void accept(String version) {
		if (needsMigration(version)) {
			new LayoutMigration(this.executor, this.prefix).run();
			this.executor.redis().opsForValue().set(encodeUtf8(QueueKeys.layoutKey(this.prefix)),
					encodeAscii(QueueKeys.LAYOUT_VERSION));
		}
	}

}
