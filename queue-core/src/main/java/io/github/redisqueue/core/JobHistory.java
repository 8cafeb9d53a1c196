package io.github.redisqueue.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A job with what its record holds about its past, read in one script call: the engine keeps no
 * log per job, so this is what the record's fields tell (when it was enqueued and last became
 * ready, the attempts that ended in a failure and the last error, the times a worker lost it,
 * the current or last worker and lease, when it finished), plus the keys it was enqueued with.
 *
 * @param job the job as {@link QueueAdminOperations#job(String, String)} reads it
 * @param losses times a worker lost it (its lease ran out, or the reaper took it back from a
 * worker whose heartbeat ran out), whether or not it had started
 * @param readyAt when it last went back to ready (a retry falling due, a loss, a run now), or
 * {@code null}
 * @param uniqueKey its uniqueness key, or {@code null}
 * @param batch the batch it belongs to, or {@code null}
 * @param group its group, or {@code null}
 * @since 0.1.0
 */
public record JobHistory(JobInfo job, int losses, @Nullable Instant readyAt, @Nullable String uniqueKey,
		@Nullable String batch, @Nullable String group) {
}
