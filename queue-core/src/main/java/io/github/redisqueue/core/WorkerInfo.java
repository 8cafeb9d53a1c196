package io.github.redisqueue.core;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A worker process as it last described itself in its heartbeat.
 *
 * @param id the worker identity
 * @param host the host it runs on
 * @param queues the queues it consumes
 * @param runningJobs jobs it was running at the heartbeat
 * @param startedAt when it started
 * @param lastSeen its last heartbeat (Redis server clock)
 * @since 0.1.0
 */
public record WorkerInfo(String id, String host, List<String> queues, int runningJobs, @Nullable Instant startedAt,
		@Nullable Instant lastSeen) {

}
