package io.github.redisqueue.listener.retry;

import java.lang.reflect.InvocationTargetException;
import java.time.Duration;

import io.github.redisqueue.core.FailResult;
import io.github.redisqueue.core.QueueOperations;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.DeadLetterCallback;
import io.github.redisqueue.support.converter.JobConversionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.messaging.MessagingException;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * Decides what a failed job becomes: a retry after the listener's back-off (the job waits in
 * the delayed set, no thread sleeps), or a dead letter when the failure is fatal (unreadable
 * payload, unresolvable argument, an exception marked not retryable) or the attempts are used up.
 */
public final class FailureHandler {

	private static final Logger logger = LoggerFactory.getLogger(FailureHandler.class);

	private static final int MAX_ERROR_LENGTH = 4096;

	private final QueueOperations operations;

	private final String queue;

	private final ContainerOptions options;

	private final @Nullable DeadLetterCallback callback;

	/**
	 * @param operations the engine
	 * @param queue the queue name
	 * @param options the container options (back-off, exceptions not retried)
	 * @param callback told about the jobs dead-lettered, if any
	 */
	public FailureHandler(QueueOperations operations, String queue, ContainerOptions options,
			@Nullable DeadLetterCallback callback) {
		this.operations = operations;
		this.queue = queue;
		this.options = options;
		this.callback = callback;
	}

	/**
	 * Settle a job whose listener threw.
	 * @param job the job
	 * @param failure what the listener threw
	 * @return what became of the job
	 */
	public FailResult handle(ReservedJob job, Throwable failure) {
		Throwable cause = unwrap(failure);
		String error = describe(cause);
		// the effective value: a listener's max attempts was written on the job when it was reserved
		int maxAttempts = job.maxAttempts();
		long delay = (job.attempt() < maxAttempts && !isFatal(cause)) ? backOffMillis(job.attempt()) : BackOffExecution.STOP;
		FailResult result = (delay == BackOffExecution.STOP) ? this.operations.deadLetter(this.queue, job.ref(), error)
				: this.operations.retry(this.queue, job.ref(), error, Duration.ofMillis(delay));
		switch (result) {
			case RETRY_SCHEDULED -> logger.debug("Job {} of queue '{}' failed on attempt {}, retrying in {} ms: {}",
					job.id(), this.queue, job.attempt(), delay, error);
			case DEAD_LETTERED -> {
				logger.warn("Job {} of queue '{}' dead-lettered after attempt {}: {}", job.id(), this.queue,
						job.attempt(), error);
				deadLettered(job, cause);
			}
			default -> logger.warn("Failure of job {} of queue '{}' not recorded ({}): its lease was lost", job.id(),
					this.queue, result);
		}
		return result;
	}

	/**
	 * Tell the application's callback about a job dead-lettered elsewhere.
	 * @param job the job
	 * @param cause why
	 */
	public void deadLettered(ReservedJob job, Throwable cause) {
		if (this.callback == null) {
			return;
		}
		try {
			this.callback.onDeadLetter(job, cause);
		}
		catch (RuntimeException ex) {
			logger.error("Dead-letter callback failed for job {} of queue '{}'", job.id(), this.queue, ex);
		}
	}

	/**
	 * The back-off before the attempt after {@code attempt}.
	 * @param attempt the attempt that failed, from 1
	 * @return the delay in ms, or {@link BackOffExecution#STOP}
	 */
	public long backOffMillis(int attempt) {
		BackOff backOff = this.options.backOff();
		BackOffExecution execution = backOff.start();
		long delay = 0;
		for (int i = 0; i < attempt; i++) {
			delay = execution.nextBackOff();
			if (delay == BackOffExecution.STOP) {
				break;
			}
		}
		return delay;
	}

	/**
	 * Whether a failure must not be retried.
	 * @param cause the failure, unwrapped
	 * @return whether it, or one of its causes, is fatal
	 */
	public boolean isFatal(Throwable cause) {
		for (Throwable t = cause; t != null; t = t.getCause()) {
			if (t instanceof JobConversionException || t instanceof MessageConversionException
					|| t instanceof MethodArgumentResolutionException) {
				return true;
			}
			for (Class<? extends Throwable> type : this.options.notRetryable()) {
				if (type.isInstance(t)) {
					return true;
				}
			}
		}
		return false;
	}

	private static Throwable unwrap(Throwable failure) {
		Throwable t = failure;
		while ((t instanceof InvocationTargetException || (t instanceof MessagingException
				&& !(t instanceof MessageConversionException) && !(t instanceof MethodArgumentResolutionException)))
				&& t.getCause() != null) {
			t = t.getCause();
		}
		return t;
	}

	private static String describe(Throwable cause) {
		String text = cause.getClass().getName() + ": " + cause.getMessage();
		return (text.length() > MAX_ERROR_LENGTH) ? text.substring(0, MAX_ERROR_LENGTH) : text;
	}

}
