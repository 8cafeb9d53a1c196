package io.github.redisqueue.listener.adapter;

import java.util.HashMap;
import java.util.Map;

import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.Acknowledgement;
import io.github.redisqueue.listener.JobListener;
import io.github.redisqueue.support.JobMetadata;
import io.github.redisqueue.support.QueueHeaders;

import org.jspecify.annotations.Nullable;

import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.messaging.support.GenericMessage;

/**
 * Adapts a listener method to {@link JobListener}: the job becomes a spring-messaging
 * {@link Message} (raw payload, the job's headers, and the {@code queue_*} headers of
 * {@link QueueHeaders}) and the method is called through its {@link InvocableHandlerMethod},
 * whose argument resolvers read the payload, metadata, headers and acknowledgement handle.
 */
public class MessagingJobListenerAdapter implements JobListener {

	private final InvocableHandlerMethod handlerMethod;

	/**
	 * @param handlerMethod the listener method with its argument resolvers
	 */
	public MessagingJobListenerAdapter(InvocableHandlerMethod handlerMethod) {
		this.handlerMethod = handlerMethod;
	}

	@Override
	public void onJob(ReservedJob job, Acknowledgement acknowledgement) throws Exception {
		onJobWithResult(job, acknowledgement);
	}

	/** Calls the method; a value it returns is the job's result. */
	@Override
	public @Nullable Object onJobWithResult(ReservedJob job, Acknowledgement acknowledgement) throws Exception {
		return this.handlerMethod.invoke(toMessage(job, acknowledgement));
	}

	static Message<byte[]> toMessage(ReservedJob job, Acknowledgement acknowledgement) {
		Map<String, Object> headers = new HashMap<>(job.headers().size() + 6);
		headers.putAll(job.headers());
		headers.put(QueueHeaders.JOB_ID, job.id());
		headers.put(QueueHeaders.QUEUE, job.queue());
		headers.put(QueueHeaders.ATTEMPT, job.attempt());
		headers.put(QueueHeaders.METADATA, metadata(job));
		headers.put(QueueHeaders.ACKNOWLEDGEMENT, acknowledgement);
		return new GenericMessage<>(job.payload(), new JobMessageHeaders(headers));
	}

	/** Headers without the random id and timestamp that plain message headers generate. */
	private static final class JobMessageHeaders extends MessageHeaders {

		private static final long serialVersionUID = 1L;

		JobMessageHeaders(Map<String, Object> headers) {
			super(headers, ID_VALUE_NONE, -1L);
		}

	}

	private static JobMetadata metadata(ReservedJob job) {
		return new JobMetadata(job.queue(), job.id(), job.attempt(), job.maxAttempts(), job.enqueuedAt(),
				job.leaseUntil(), job.priority(), job.headers());
	}

}
