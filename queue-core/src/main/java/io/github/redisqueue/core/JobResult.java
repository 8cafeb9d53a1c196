package io.github.redisqueue.core;

import org.jspecify.annotations.Nullable;

/**
 * A job id with the result its handler returned.
 *
 * @param <T> the result type
 * @param jobId the job id
 * @param result the result, or {@code null} when none is stored (the handler returned nothing, the
 * job did not complete, or the result's retention ran out)
 * @since 0.1.0
 */
public record JobResult<T>(String jobId, @Nullable T result) {

}
