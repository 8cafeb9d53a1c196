package io.github.redisqueue.listener;

import java.time.Duration;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.ExtendResult;
import io.github.redisqueue.core.FailResult;
import io.github.redisqueue.core.QueueOperations;
import io.github.redisqueue.listener.fetch.RunningJob;
import io.github.redisqueue.listener.retry.FailureHandler;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Acknowledgement} handed to listeners: each call goes straight to Redis with the
 * job's lease token.
 */
final class DefaultAcknowledgement implements Acknowledgement {

	private final QueueOperations operations;

	private final String queue;

	private final RunningJob running;

	private final FailureHandler failures;

	private volatile boolean settled;

	DefaultAcknowledgement(QueueOperations operations, String queue, RunningJob running, FailureHandler failures) {
		this.operations = operations;
		this.queue = queue;
		this.running = running;
		this.failures = failures;
	}

	@Override
	public AckResult complete() {
		settle();
		return this.operations.complete(this.queue, this.running.job().ref());
	}

	@Override
	public FailResult retry(String error) {
		settle();
		return this.failures.handle(this.running.job(), new ListenerFailure(error));
	}

	@Override
	public FailResult deadLetter(String error) {
		settle();
		FailResult result = this.operations.deadLetter(this.queue, this.running.job().ref(), error);
		if (result == FailResult.DEAD_LETTERED) {
			this.failures.deadLettered(this.running.job(), new ListenerFailure(error));
		}
		return result;
	}

	@Override
	public ExtendResult extend(Duration lease) {
		return this.operations.extend(this.queue, this.running.job().ref(), lease);
	}

	@Override
	public boolean progress(@Nullable Object progress) {
		return this.operations.progress(this.queue, this.running.job().ref(), progress);
	}

	@Override
	public AckResult release() {
		settle();
		return this.operations.release(this.queue, this.running.job().ref());
	}

	@Override
	public boolean isSettled() {
		return this.settled;
	}

	private void settle() {
		this.settled = true;
		this.running.stopExtending();
	}

	/** A failure reported by hand rather than thrown. */
	static final class ListenerFailure extends RuntimeException {

		private static final long serialVersionUID = 1L;

		ListenerFailure(String message) {
			super(message, null, false, false);
		}

	}

}
