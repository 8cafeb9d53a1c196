package io.github.redisqueue.testing;

import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.ReservedJob;
import org.jspecify.annotations.Nullable;

/**
 * One job a listener ran through {@link QueueTestHelper#runOne(String)}, and where it is now.
 *
 * @param job the job as the listener received it
 * @param state where it is after the run: {@link JobState#COMPLETED} (also when completed jobs
 * are not kept), {@link JobState#DELAYED} or {@link JobState#READY} when it failed and will run
 * again, {@link JobState#DEAD} when it was dead-lettered, {@link JobState#ACTIVE} when a listener
 * in manual acknowledgement mode left it unsettled
 * @param error the last error recorded for it, if any
 * @since 0.1.0
 */
public record JobRun(ReservedJob job, JobState state, @Nullable String error) {

	/** The job id. */
	public String id() {
		return this.job.id();
	}

	/** Whether the job completed. */
	public boolean completed() {
		return this.state == JobState.COMPLETED;
	}

	/** Whether the job failed and will run again. */
	public boolean retried() {
		return this.state == JobState.DELAYED || this.state == JobState.READY;
	}

	/** Whether the job was dead-lettered. */
	public boolean deadLettered() {
		return this.state == JobState.DEAD;
	}

}
