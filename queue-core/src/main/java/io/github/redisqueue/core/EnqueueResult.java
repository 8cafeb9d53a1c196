package io.github.redisqueue.core;

import org.jspecify.annotations.Nullable;

/**
 * What an enqueue did.
 *
 * <p>An enqueue made inside a Spring transaction by a transaction-aware template (see
 * {@link QueueTemplate#setTransactionAware}) is {@linkplain #deferred() deferred}: nothing is sent
 * to Redis before the transaction commits, so there is no job and no id yet, and the result is
 * {@link #DEFERRED}, whose {@link #id()} is {@code null}; the job gets its id when the enqueue
 * runs after the commit, and none at all if the transaction rolls back. {@link #requireId()}
 * reads the id of an enqueue that ran, and throws for a deferred one.
 *
 * @param id the new job's id, or, for a duplicate, the id of the job that holds the uniqueness key;
 * {@code null} only for a deferred enqueue
 * @param duplicate whether the job was refused because another job holds its uniqueness key
 * @param deferred whether the enqueue waits for the current transaction to commit
 * @since 0.1.0
 */
public record EnqueueResult(@Nullable String id, boolean duplicate, boolean deferred) {

	/** The result of an enqueue deferred until the current transaction commits: no id yet. */
	public static final EnqueueResult DEFERRED = new EnqueueResult(null, false, true);

	/** Checks that a result has an id exactly when it is not deferred. */
	public EnqueueResult {
		if (deferred ? (id != null || duplicate) : id == null) {
			throw new IllegalArgumentException(
					"An enqueue result has an id unless it is deferred, and a deferred one is no duplicate");
		}
	}

	/**
	 * The result of an enqueue that ran.
	 * @param id the job's id (or the holder's, for a duplicate)
	 * @param duplicate whether the job was refused as a duplicate
	 */
	public EnqueueResult(String id, boolean duplicate) {
		this(id, duplicate, false);
	}

	/**
	 * The id of an enqueue that ran.
	 * @return the job's id, or for a duplicate the id of the job that holds the uniqueness key
	 * @throws IllegalStateException when the enqueue is {@linkplain #deferred() deferred}: its job
	 * does not exist before the transaction commits
	 */
	public String requireId() {
		if (this.id == null) {
			throw new IllegalStateException("This enqueue is deferred until the current transaction commits: its job "
					+ "has no id before then, and none at all if the transaction rolls back");
		}
		return this.id;
	}

	@Override
	public String toString() {
		return this.deferred ? "EnqueueResult[deferred until commit]"
				: "EnqueueResult[id=" + this.id + ", duplicate=" + this.duplicate + "]";
	}

}
