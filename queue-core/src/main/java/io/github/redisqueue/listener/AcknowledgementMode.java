package io.github.redisqueue.listener;

/**
 * When a listener's job is acknowledged.
 *
 * @since 0.1.0
 */
public enum AcknowledgementMode {

	/**
	 * Complete when the listener returns normally; when it throws, retry with back-off until the
	 * job's attempts are used up, then dead-letter it. The default.
	 */
	ON_SUCCESS,

	/** Complete whether the listener returns or throws (the error is logged and reported). */
	ALWAYS,

	/**
	 * The listener acknowledges through an {@link Acknowledgement} argument; a job left
	 * unacknowledged is delivered again when its lease runs out.
	 */
	MANUAL,

	/**
	 * Complete when the job starts, before the listener runs: never delivered twice, lost if
	 * the worker dies while it runs. The listener runs only when Redis accepted that completion;
	 * a job whose completion is refused (its lease ran out and someone else reserved it) or not
	 * answered is skipped. Jobs reserved ahead keep their leases extended while they wait. For
	 * work where a loss is better than a repeat.
	 */
	AT_MOST_ONCE

}
