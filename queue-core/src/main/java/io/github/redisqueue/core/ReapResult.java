package io.github.redisqueue.core;

/**
 * What one reaper pass did.
 *
 * @param reclaimed expired leases returned to ready or dead-lettered
 * @param promoted delayed jobs that fell due and moved to ready
 * @param expired jobs dead-lettered because they did not start before their expiry
 * @param purgedCompleted completed jobs deleted after their retention
 * @param purgedDead dead jobs deleted after their retention
 * @param abandoned in-flight jobs of workers whose heartbeat ran out, taken back before their
 * leases ran out (not counted in {@code reclaimed})
 * @since 0.1.0
 */
public record ReapResult(long reclaimed, long promoted, long expired, long purgedCompleted, long purgedDead,
		long abandoned) {

	/** A pass that did nothing. */
	public static final ReapResult NONE = new ReapResult(0, 0, 0, 0, 0, 0);

	/** The sum of this pass and another. */
	public ReapResult plus(ReapResult other) {
		return new ReapResult(this.reclaimed + other.reclaimed, this.promoted + other.promoted,
				this.expired + other.expired, this.purgedCompleted + other.purgedCompleted,
				this.purgedDead + other.purgedDead, this.abandoned + other.abandoned);
	}

	/** Whether the pass changed anything. */
	public boolean isEmpty() {
		return this.equals(NONE);
	}

}
