package io.github.redisqueue.core;

/**
 * Outcome of recording a failed attempt.
 *
 * @since 0.1.0
 */
public enum FailResult {

	/** The job will run again after its back-off. */
	RETRY_SCHEDULED,

	/** The job is in the dead letters, with the error as its reason. */
	DEAD_LETTERED,

	/** The token is not the job's current lease; nothing was changed. */
	STALE_TOKEN,

	/** No such job. */
	NOT_FOUND;

}
