package io.github.redisqueue.core.partition;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.zip.CRC32;

import io.github.redisqueue.core.JobIds;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.script.QueueKeys;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions of the queues of one template: the keys of each queue or partition, where a job
 * or batch lives (its id names its partition), where a new one goes (its routing key's partition
 * or the next in turn), and which partitions did not answer a reserve lately.
 */
public final class QueuePartitions {

	private static final Logger logger = LoggerFactory.getLogger(QueuePartitions.class);

	private final QueueSettings settings;

	private final ConcurrentMap<String, QueueKeys> keys = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, QueueKeys[]> partitionKeys = new ConcurrentHashMap<>();

	// per partitioned queue, the partition whose turn it is (enqueues without a routing key,
	// batches without an id, reserves)
	private final ConcurrentMap<String, AtomicInteger> turns = new ConcurrentHashMap<>();

	// per partitioned queue, the partitions that failed to answer its last reserve
	private final ConcurrentMap<String, Set<String>> silentPartitions = new ConcurrentHashMap<>();

	// per partition that failed to answer a reserve, until when (System.nanoTime) reserves leave it out
	private final ConcurrentMap<String, Long> skippedPartitions = new ConcurrentHashMap<>();

	public QueuePartitions(QueueSettings settings) {
		this.settings = settings;
	}

	/**
	 * The keys of one queue of one partition (validates the name); a partitioned queue has no such
	 * keys, see {@link #partitions(String)}.
	 */
	public QueueKeys keys(String queue) {
		QueueKeys existing = this.keys.get(queue);
		if (existing != null) {
			return existing;
		}
		if (this.settings.partitions(queue) > 1) {
			throw new IllegalStateException("Queue '" + queue + "' is spread over " + this.settings.partitions(queue)
					+ " partitions: a call on it must name a partition");
		}
		return this.keys.computeIfAbsent(queue, (name) -> new QueueKeys(this.settings.keyPrefix(), name));
	}

	/**
	 * The keys of every partition of a queue, in partition order (validates the name); one for a
	 * queue that is not partitioned.
	 */
	public QueueKeys[] partitions(String queue) {
		QueueKeys[] existing = this.partitionKeys.get(queue);
		if (existing != null) {
			return existing;
		}
		int count = this.settings.partitions(queue);
		return this.partitionKeys.computeIfAbsent(queue, (name) -> {
			QueueKeys[] parts = new QueueKeys[count];
			for (int i = 0; i < count; i++) {
				parts[i] = (count == 1) ? keys(name) : new QueueKeys(this.settings.keyPrefix(), name, i, count);
			}
			return parts;
		});
	}

	/** The keys of the partition that holds the job or batch with the given id. */
	public QueueKeys keysFor(String queue, String id) {
		QueueKeys[] parts = partitions(queue);
		return (parts.length == 1) ? parts[0] : parts[partitionOfId(id, parts.length)];
	}

	/** The keys of the partition that holds a job, its id checked first (see {@link JobIds}). */
	public QueueKeys keysForJob(String queue, String id) {
		return keysFor(queue, JobIds.validate(id));
	}

	/**
	 * The keys of the partition a new job or batch goes to: the partition of its routing key, or
	 * the next partition in turn.
	 */
	public QueueKeys keysForNew(String queue, @Nullable String routingKey) {
		QueueKeys[] parts = partitions(queue);
		if (parts.length == 1) {
			return parts[0];
		}
		return parts[(routingKey != null) ? partitionOfKey(routingKey, parts.length) : nextTurn(queue, parts.length)];
	}

	/** The partition whose turn it is, from 0 to {@code count - 1}; the turn moves on. */
	public int nextTurn(String queue, int count) {
		return Math.floorMod(this.turns.computeIfAbsent(queue, (name) -> new AtomicInteger()).getAndIncrement(), count);
	}

	/**
	 * The partition of a job or batch id: a partition's ids are its index modulo the partition
	 * count; other ids (batch ids a caller chose) by their hash, as routing keys.
	 */
	public static int partitionOfId(String id, int count) {
		int length = id.length();
		if (length > 0 && length <= 18) {
			boolean digits = true;
			for (int i = 0; i < length && digits; i++) {
				char c = id.charAt(i);
				digits = c >= '0' && c <= '9';
			}
			if (digits) {
				return (int) (Long.parseLong(id) % count);
			}
		}
		return partitionOfKey(id, count);
	}

	/** The partition of a routing key: the CRC-32 of its UTF-8 bytes modulo the partition count. */
	public static int partitionOfKey(String key, int count) {
		CRC32 crc = new CRC32();
		crc.update(key.getBytes(StandardCharsets.UTF_8));
		return (int) (crc.getValue() % count);
	}

	/**
	 * Runs {@code call} once per partition that holds some of the jobs, with those jobs, and
	 * returns the results in the order of {@code jobs}.
	 */
	public <R> List<R> byPartition(String queue, Collection<JobRef> jobs,
			BiFunction<QueueKeys, Collection<JobRef>, List<R>> call) {
		QueueKeys[] parts = partitions(queue);
		JobIds.validateRefs(jobs);
		if (parts.length == 1) {
			return call.apply(parts[0], jobs);
		}
		List<JobRef> all = List.copyOf(jobs);
		List<List<Integer>> positions = new ArrayList<>(parts.length);
		for (int p = 0; p < parts.length; p++) {
			positions.add(new ArrayList<>());
		}
		for (int i = 0; i < all.size(); i++) {
			positions.get(partitionOfId(all.get(i).id(), parts.length)).add(i);
		}
		List<R> results = new ArrayList<>(Collections.nCopies(all.size(), null));
		for (int p = 0; p < parts.length; p++) {
			List<Integer> at = positions.get(p);
			if (at.isEmpty()) {
				continue;
			}
			List<R> answers = call.apply(parts[p], at.stream().map(all::get).toList());
			for (int j = 0; j < at.size(); j++) {
				results.set(at.get(j), answers.get(j));
			}
		}
		return results;
	}

	/**
	 * Records which partitions of a queue did not answer its last reserve.
	 * @return whether that differs from the reserve before, so worth a log line
	 */
	public boolean silent(String queue, Set<String> silent) {
		Set<String> before = this.silentPartitions.put(queue, silent);
		boolean changed = !silent.equals((before != null) ? before : Set.of());
		if (changed && silent.isEmpty() && before != null) {
			logger.info("Partitions {} of queue '{}' answer again", before, queue);
		}
		return changed;
	}

	/** Leave a partition that failed to answer out of reserves for the given time. */
	public void skip(QueueKeys k, Duration time) {
		this.skippedPartitions.put(k.name(), System.nanoTime() + time.toNanos());
	}

	/** Whether reserves leave the partition out now. */
	public boolean skipped(QueueKeys k) {
		Long until = this.skippedPartitions.get(k.name());
		if (until == null) {
			return false;
		}
		if (System.nanoTime() - until >= 0) {
			this.skippedPartitions.remove(k.name(), until);
			return false;
		}
		return true;
	}

}
