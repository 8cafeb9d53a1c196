package io.github.redisqueue.core;

/**
 * The order of a page of {@link QueueAdminOperations#jobs jobs of one state}. Each state is listed
 * by the score of its index:
 * <ul>
 * <li>{@link JobState#READY ready} jobs in the order they will be handed out: higher priority
 * first, then first in, first out ({@link #OLDEST_FIRST}: the next to run first);</li>
 * <li>{@link JobState#DELAYED delayed} jobs by due time ({@link #OLDEST_FIRST}: due soonest
 * first; for one due time, in id order);</li>
 * <li>{@link JobState#ACTIVE active} jobs by lease deadline ({@link #OLDEST_FIRST}: the lease
 * that runs out soonest first);</li>
 * <li>{@link JobState#DEAD dead} jobs by time of death ({@link #OLDEST_FIRST}: died longest ago
 * first).</li>
 * </ul>
 *
 * @since 0.1.0
 */
public enum JobOrder {

	/** By ascending score of the state's index: the next to run, the soonest due, the oldest death first. */
	OLDEST_FIRST,

	/** By descending score of the state's index: the reverse of {@link #OLDEST_FIRST}. */
	NEWEST_FIRST

}
