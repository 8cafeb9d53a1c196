package io.github.redisqueue.core;

/**
 * What happened to jobs, as reported to {@link JobEvents}.
 *
 * @since 0.1.0
 */
public enum JobOutcome {

	/** Enqueued. */
	ENQUEUED,

	/** Refused at enqueue because another job holds its uniqueness key. */
	DUPLICATE,

	/** Acknowledged. */
	COMPLETED,

	/** Failed and scheduled to run again. */
	FAILED,

	/** Moved to the dead letters. */
	DEAD_LETTERED,

	/** Dead-lettered because it did not start before its expiry. */
	EXPIRED,

	/** Its lease ran out and it was taken back. */
	REAPED

}
