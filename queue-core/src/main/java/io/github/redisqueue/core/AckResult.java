package io.github.redisqueue.core;

/**
 * Outcome of an operation that needs the lease token: complete, release, extend.
 *
 * @since 0.1.0
 */
public enum AckResult {

	/** Done. */
	OK,

	/**
	 * The token is not the job's current lease: the lease ran out and the job was given back or
	 * handed to another consumer. Nothing was changed.
	 */
	STALE_TOKEN,

	/** No such job (already completed and deleted, purged, or never existed). */
	NOT_FOUND;

}
