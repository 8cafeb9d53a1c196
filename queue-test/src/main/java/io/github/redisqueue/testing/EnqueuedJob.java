package io.github.redisqueue.testing;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.support.converter.JobSerializer;
import org.jspecify.annotations.Nullable;

/**
 * A job waiting in a queue, as {@link QueueTestHelper#enqueued(String)} reads it: its payload
 * (read with the application's serializer), headers and the options it was enqueued with.
 *
 * @since 0.1.0
 */
public final class EnqueuedJob {

	private final JobInfo info;

	private final JobSerializer serializer;

	EnqueuedJob(JobInfo info, JobSerializer serializer) {
		this.info = info;
		this.serializer = serializer;
	}

	/** The job id. */
	public String id() {
		return this.info.id();
	}

	/** {@link JobState#READY} or {@link JobState#DELAYED}. */
	public JobState state() {
		return this.info.state();
	}

	/**
	 * The payload read as {@code type}, as a listener taking that type would receive it.
	 * @param type the payload type
	 * @param <T> the payload type
	 * @return the payload
	 */
	public <T> T payload(Class<T> type) {
		return this.serializer.deserialize(this.info.payload(), type);
	}

	/** The payload as stored, as UTF-8 text (JSON with the default serializer). */
	public String payloadAsString() {
		return new String(this.info.payload(), StandardCharsets.UTF_8);
	}

	/** The job's headers. */
	public Map<String, String> headers() {
		return this.info.headers();
	}

	/** Its priority. */
	public int priority() {
		return this.info.priority();
	}

	/** The attempts it is permitted. */
	public int maxAttempts() {
		return this.info.maxAttempts();
	}

	/** When it was enqueued (Redis clock). */
	public Instant enqueuedAt() {
		return this.info.enqueuedAt();
	}

	/** When a delayed job falls due (Redis clock); {@code null} for a ready job. */
	public @Nullable Instant dueAt() {
		return this.info.dueAt();
	}

	/** When it expires if it has not started by then; {@code null} without an expiry. */
	public @Nullable Instant expireAt() {
		return this.info.expireAt();
	}

	/** Everything stored about the job. */
	public JobInfo info() {
		return this.info;
	}

	@Override
	public String toString() {
		return "EnqueuedJob[id=" + id() + ", state=" + state() + ", priority=" + priority() + ", headers=" + headers()
				+ ", payload=" + payloadAsString() + "]";
	}

}
