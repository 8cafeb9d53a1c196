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

	static FailResult fromCode(long code) {
		return switch ((int) code) {
			case 1 -> RETRY_SCHEDULED;
			case 2 -> DEAD_LETTERED;
			case 0 -> STALE_TOKEN;
			default -> NOT_FOUND;
		};
	}

}
