package io.github.redisqueue.core.engine;

import java.util.Optional;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.core.script.QueueKeys;

import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;

/**
 * Handler results of a template: one string per job under {@code <queue tag>:result:<id>},
 * serialized like payloads, kept for the result retention and refused past the size limit.
 */
public final class JobResults {

	private final QueueContext context;

	public JobResults(QueueContext context) {
		this.context = context;
	}

	public boolean store(String queue, String jobId, Object result) {
		QueueKeys k = this.context.partitioning().keysForJob(queue, jobId);
		if (this.context.settings().resultRetention().isZero()) {
			return false;
		}
		byte[] bytes = this.context.serializer().serialize(result);
		if (bytes.length > this.context.settings().maxResultBytes()) {
			throw new QueueException("Result of job " + jobId + " of queue '" + queue + "' has " + bytes.length
					+ " bytes, more than the limit of " + this.context.settings().maxResultBytes()
					+ " (queue.max-result-size); it is not stored");
		}
		this.context.executor().redis()
			.opsForValue()
			.set(encodeUtf8(k.resultKey(jobId)), bytes, this.context.settings().resultRetention());
		return true;
	}

	public <T> Optional<T> read(String queue, String jobId, Class<T> type) {
		byte[] raw = this.context.executor().redis().opsForValue().get(encodeUtf8(this.context.partitioning().keysForJob(queue, jobId).resultKey(jobId)));
		return (raw != null) ? Optional.of(this.context.serializer().deserialize(raw, type)) : Optional.empty();
	}

}
