package io.github.redisqueue.core;

/**
 * Where a batch stands.
 *
 * @since 0.1.0
 */
public enum BatchState {

	/** Open: sub-jobs may still be added; it cannot finish before it is sealed. */
	OPEN,

	/** Sealed: no more sub-jobs; it finishes when the last of them ends. */
	SEALED,

	/** Finished: every sub-job completed or was dead-lettered. */
	COMPLETED,

	/** Cancelled, waiting for its running sub-jobs to end. */
	CANCELLING,

	/** Finished by a cancellation. */
	CANCELLED,

	/** The state field holds no known state. */
	UNKNOWN;

	/** Whether the batch has finished (completed or cancelled). */
	public boolean isFinished() {
		return this == COMPLETED || this == CANCELLED;
	}

	public static BatchState of(String value) {
		return switch (value) {
			case "open" -> OPEN;
			case "sealed" -> SEALED;
			case "completed" -> COMPLETED;
			case "cancelling" -> CANCELLING;
			case "cancelled" -> CANCELLED;
			default -> UNKNOWN;
		};
	}

}
