package io.github.redisqueue.core.partition;

import java.util.ArrayList;
import java.util.List;

import io.github.redisqueue.core.JobOptions;
import org.jspecify.annotations.Nullable;

/**
 * The partition of a new job of a partitioned queue. A job goes to the partition of one key (see
 * {@link JobOptions#routingKey()}), and each partition checks only its own uniqueness keys,
 * idempotency keys and group places: so these hold across the queue only when every job that
 * carries a given key goes to that key's partition. A job whose partition key, group, uniqueness
 * key and idempotency key are not all the same value would break that, and is refused.
 */
public final class JobRouting {

	private JobRouting() {
	}

	/**
	 * The routing key of a job with these options on a queue of {@code partitions} partitions.
	 * @throws IllegalArgumentException when the queue is partitioned and two of the job's keys that
	 * pick a partition differ
	 */
	public static @Nullable String routingKey(String queue, int partitions, JobOptions options) {
		if (partitions > 1) {
			List<String[]> keys = new ArrayList<>(4);
			add(keys, "partition key", options.getPartitionKey());
			add(keys, "group", options.getGroup());
			add(keys, "uniqueness key", options.getUniqueKey());
			add(keys, "idempotency key", options.getIdempotencyKey());
			for (int i = 1; i < keys.size(); i++) {
				String[] first = keys.get(0);
				String[] other = keys.get(i);
				if (!first[1].equals(other[1])) {
					throw new IllegalArgumentException("A job of queue '" + queue + "' (" + partitions
							+ " partitions) cannot carry " + first[0] + " '" + JobOptions.Builder.abbreviate(first[1])
							+ "' and " + other[0] + " '" + JobOptions.Builder.abbreviate(other[1])
							+ "': a job goes to the partition of one key, and each partition checks only its own "
							+ "uniqueness keys, idempotency keys and groups, so these would not hold across the queue; "
							+ "give both the same value, or keep one of them");
				}
			}
		}
		return options.routingKey();
	}

	private static void add(List<String[]> keys, String what, @Nullable String value) {
		if (value != null) {
			keys.add(new String[] { what, value });
		}
	}

}
