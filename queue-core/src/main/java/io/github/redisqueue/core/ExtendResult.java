package io.github.redisqueue.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Outcome of a lease extension.
 *
 * @param result whether the lease was extended
 * @param leaseUntil the new lease deadline (Redis server clock), when extended
 * @since 0.1.0
 */
public record ExtendResult(AckResult result, @Nullable Instant leaseUntil) {

	/** Whether the lease was extended. */
	public boolean extended() {
		return this.result == AckResult.OK;
	}

}
