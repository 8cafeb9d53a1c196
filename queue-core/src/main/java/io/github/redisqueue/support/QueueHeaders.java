package io.github.redisqueue.support;

/**
 * Names of the message headers a listener method may read with {@code @Header}, besides the
 * job's own string headers.
 *
 * @since 0.1.0
 */
public final class QueueHeaders {

	/** Prefix of every header set by redis-queue. */
	public static final String PREFIX = "queue_";

	/** The job id. */
	public static final String JOB_ID = PREFIX + "jobId";

	/** The queue name. */
	public static final String QUEUE = PREFIX + "queue";

	/** The attempt number, from 1. */
	public static final String ATTEMPT = PREFIX + "attempt";

	/** The {@link JobMetadata}. */
	public static final String METADATA = PREFIX + "metadata";

	/** The {@link io.github.redisqueue.listener.Acknowledgement}. */
	public static final String ACKNOWLEDGEMENT = PREFIX + "acknowledgement";

	/** Stored header of a batch's completion job: the id of the batch. */
	public static final String BATCH_ID = PREFIX + "batchId";

	/** Stored header of a batch's completion job: the queue of the batch's sub-jobs. */
	public static final String BATCH_QUEUE = PREFIX + "batchQueue";

	/** Stored header of a batch's completion job: {@code completed} or {@code cancelled}. */
	public static final String BATCH_STATE = PREFIX + "batchState";

	/** Stored header of a batch's completion job: how many sub-jobs the batch had. */
	public static final String BATCH_TOTAL = PREFIX + "batchTotal";

	/** Stored header of a batch's completion job: how many sub-jobs completed. */
	public static final String BATCH_COMPLETED = PREFIX + "batchCompleted";

	/** Stored header of a batch's completion job: how many sub-jobs were dead-lettered. */
	public static final String BATCH_DEAD = PREFIX + "batchDead";

	/** Stored header of a batch's completion job: how many sub-jobs were cancelled before they ran. */
	public static final String BATCH_CANCELLED = PREFIX + "batchCancelled";

	private QueueHeaders() {
	}

}
