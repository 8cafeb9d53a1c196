package io.github.redisqueue.core;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * The settings of one queue in {@link QueueSettings}: its group concurrency, its partitions and
 * its rate limit. Immutable; derive changed settings with the {@code with} methods. The builder
 * of {@link QueueSettings} sets them per queue ({@link QueueSettings.Builder#groupConcurrency},
 * {@link QueueSettings.Builder#partitions}, {@link QueueSettings.Builder#rateLimit}, or all at
 * once with {@link QueueSettings.Builder#queue}) and checks them when it builds.
 *
 * @param groupConcurrency how many jobs of one group run at once, {@code null} for the default of
 * the settings
 * @param partitions over how many partitions the queue is spread, 1 when it is not
 * @param rateLimit the rate limit, {@code null} for none
 * @since 0.1.0
 */
public record PerQueueSettings(@Nullable Integer groupConcurrency, int partitions, @Nullable RateLimit rateLimit) {

	/** A queue without settings of its own. */
	public static final PerQueueSettings DEFAULT = new PerQueueSettings(null, 1, null);

	/**
	 * These settings with another group concurrency.
	 * @param groupConcurrency the concurrency, {@code null} for the default of the settings
	 * @return the changed settings
	 */
	public PerQueueSettings withGroupConcurrency(@Nullable Integer groupConcurrency) {
		return new PerQueueSettings(groupConcurrency, this.partitions, this.rateLimit);
	}

	/**
	 * These settings with another partition count.
	 * @param partitions the partition count, 1 when not partitioned
	 * @return the changed settings
	 */
	public PerQueueSettings withPartitions(int partitions) {
		return new PerQueueSettings(this.groupConcurrency, partitions, this.rateLimit);
	}

	/**
	 * These settings with another rate limit.
	 * @param rateLimit the limit, {@code null} for none
	 * @return the changed settings
	 */
	public PerQueueSettings withRateLimit(@Nullable RateLimit rateLimit) {
		return new PerQueueSettings(this.groupConcurrency, this.partitions, rateLimit);
	}

	/** Refuses a group concurrency out of range, naming the queue. */
	void validateGroupConcurrency(String queue) {
		if (this.groupConcurrency != null && (this.groupConcurrency < 1
				|| this.groupConcurrency > QueueSettings.MAX_CONCURRENCY_CAP)) {
			throw new IllegalArgumentException("Group concurrency of queue '" + queue + "' " + this.groupConcurrency
					+ " is out of range: it must be from 1 to " + QueueSettings.MAX_CONCURRENCY_CAP);
		}
	}

	/** Refuses a partition count out of range, naming the queue. */
	void validatePartitions(String queue) {
		if (this.partitions < 1 || this.partitions > QueueSettings.MAX_PARTITIONS) {
			throw new IllegalArgumentException("Partitions " + this.partitions + " of queue '" + queue
					+ "' are out of range: they must be from 1 to " + QueueSettings.MAX_PARTITIONS);
		}
	}

	/** Refuses a rate limit on a partitioned queue. */
	void validateRateLimit(String queue) {
		if (this.rateLimit != null && this.partitions > 1) {
			throw new IllegalArgumentException("Queue '" + queue + "' cannot have a rate limit: it is spread over "
					+ this.partitions + " partitions, which keep no common window");
		}
	}

	/** One setting of every queue that has it, by queue name. */
	static <V> Map<String, V> collect(Map<String, PerQueueSettings> queues,
			Function<PerQueueSettings, @Nullable V> setting, Predicate<V> present) {
		Map<String, V> values = new TreeMap<>();
		queues.forEach((queue, settings) -> {
			V value = setting.apply(settings);
			if (value != null && present.test(value)) {
				values.put(queue, value);
			}
		});
		return values;
	}

}
