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

	private QueueHeaders() {
	}

}
