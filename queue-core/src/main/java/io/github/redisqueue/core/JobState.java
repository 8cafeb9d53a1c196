package io.github.redisqueue.core;

/**
 * Where a job is in its life.
 *
 * @since 0.1.0
 */
public enum JobState {

	/** Waiting to be reserved. */
	READY,

	/**
	 * Waiting for a place within the cap of its batch or the concurrency of its group; it is in
	 * none of the queue's sets until admitted.
	 */
	WAITING,

	/** Waiting for its due time (first run or retry back-off). */
	DELAYED,

	/** Reserved under a lease. */
	ACTIVE,

	/** Acknowledged and kept for the completed-job retention. */
	COMPLETED,

	/** In the dead letters: attempts exhausted, refused as fatal, or expired. */
	DEAD,

	/** The job's state field is missing or holds no known state (the hash was damaged). */
	UNKNOWN;

}
