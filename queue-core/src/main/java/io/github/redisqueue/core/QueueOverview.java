package io.github.redisqueue.core;

import java.util.List;
import java.util.Map;

/**
 * Every registered queue with its counts, and the live workers, read together.
 *
 * @param queues counts by queue name, sorted by name
 * @param workers the workers whose heartbeat is alive
 * @since 0.1.0
 */
public record QueueOverview(Map<String, QueueCounts> queues, List<WorkerInfo> workers) {

}
