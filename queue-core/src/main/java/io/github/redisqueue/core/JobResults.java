package io.github.redisqueue.core;

import java.util.Optional;

import io.github.redisqueue.QueueException;

import static io.github.redisqueue.core.ScriptArgs.encodeUtf8;

/**
 * Handler results of a template: one string per job under {@code <queue tag>:result:<id>},
 * serialized like payloads, kept for the result retention and refused past the size limit.
 */
final class JobResults {

	private final QueueTemplate template;

	JobResults(QueueTemplate template) {
		this.template = template;
	}

	boolean store(String queue, String jobId, Object result) {
		QueueKeys k = this.template.partitioning().keysForJob(queue, jobId);
		if (this.template.getSettings().resultRetention().isZero()) {
			return false;
		}
		byte[] bytes = this.template.getSerializer().serialize(result);
		if (bytes.length > this.template.getSettings().maxResultBytes()) {
			throw new QueueException("Result of job " + jobId + " of queue '" + queue + "' has " + bytes.length
					+ " bytes, more than the limit of " + this.template.getSettings().maxResultBytes()
					+ " (queue.max-result-size); it is not stored");
		}
		this.template.executor().redis()
			.opsForValue()
			.set(encodeUtf8(k.resultKey(jobId)), bytes, this.template.getSettings().resultRetention());
		return true;
	}

	<T> Optional<T> read(String queue, String jobId, Class<T> type) {
		byte[] raw = this.template.executor().redis().opsForValue().get(encodeUtf8(this.template.partitioning().keysForJob(queue, jobId).resultKey(jobId)));
		return (raw != null) ? Optional.of(this.template.getSerializer().deserialize(raw, type)) : Optional.empty();
	}

}
