package io.github.redisqueue.core.enqueue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.core.EnqueueResult;
import io.github.redisqueue.core.JobOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The enqueues of one enqueuer deferred until the current Spring transaction commits: one
 * synchronization per transaction and enqueuer, holding the enqueues in call order. Each enqueue
 * is checked and its payloads serialized when it is called, so that a payload that cannot be
 * enqueued fails inside the transaction; only the Redis call waits for the commit.
 *
 * <p>After a commit the enqueues run in {@code afterCommit}, in order; one that fails does not
 * stop the others, and the failures are logged as an error, never thrown: an exception from
 * {@code afterCommit} would skip the {@code afterCommit} of every synchronization after this one
 * (a transacted JMS session's commit, another resource's), losing their work. An enqueue
 * deferred from another synchronization's {@code afterCommit} (the transaction already committed,
 * but its synchronization is still active) runs in {@code afterCompletion}. After a rollback
 * nothing is sent. Only a transaction that really runs defers: under {@code SUPPORTS},
 * {@code NOT_SUPPORTED} or {@code NEVER} without one, synchronization may be active while no
 * transaction is, and the enqueue runs at once.
 */
public final class AfterCommitEnqueues implements TransactionSynchronization {

	private static final Logger logger = LoggerFactory.getLogger(AfterCommitEnqueues.class);

	private final JobEnqueuer enqueuer;

	private final List<Deferred> deferred = new ArrayList<>();

	private AfterCommitEnqueues(JobEnqueuer enqueuer) {
		this.enqueuer = enqueuer;
	}

	/**
	 * Whether an enqueue on this thread would be deferred: a transaction runs and its
	 * synchronization is active (it stays so through {@code afterCommit}).
	 */
	public static boolean active() {
		return TransactionSynchronizationManager.isSynchronizationActive()
				&& TransactionSynchronizationManager.isActualTransactionActive();
	}

	/**
	 * Check and serialize the payloads now, and send them when the current transaction commits.
	 * @return {@link EnqueueResult#DEFERRED} once per payload
	 */
	public static List<EnqueueResult> defer(JobEnqueuer enqueuer, String queue, Collection<?> payloads,
			JobOptions options) {
		List<byte[]> serialized = enqueuer.prepare(queue, payloads, options);
		if (!serialized.isEmpty()) {
			current(enqueuer).deferred.add(new Deferred(queue, serialized, options));
		}
		return Collections.nCopies(serialized.size(), EnqueueResult.DEFERRED);
	}

	private static AfterCommitEnqueues current(JobEnqueuer enqueuer) {
		for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
			if (synchronization instanceof AfterCommitEnqueues enqueues && enqueues.enqueuer == enqueuer) {
				return enqueues;
			}
		}
		AfterCommitEnqueues enqueues = new AfterCommitEnqueues(enqueuer);
		TransactionSynchronizationManager.registerSynchronization(enqueues);
		return enqueues;
	}

	@Override
	public void afterCommit() {
		try {
			send();
		}
		catch (RuntimeException ex) {
			logger.error(ex.getMessage(), ex);
		}
	}

	@Override
	public void afterCompletion(int status) {
		if (this.deferred.isEmpty()) {
			return;
		}
		if (status == STATUS_COMMITTED) {
			try {
				send();
			}
			catch (RuntimeException ex) {
				logger.error(ex.getMessage(), ex);
			}
			return;
		}
		if (status == STATUS_UNKNOWN) {
			logger.warn("{} enqueue call(s) deferred until a transaction commits were dropped: the transaction "
					+ "ended with an unknown outcome", this.deferred.size());
		}
		this.deferred.clear();
	}

	private void send() {
		List<Deferred> calls = new ArrayList<>(this.deferred);
		this.deferred.clear();
		RuntimeException failure = null;
		int failed = 0;
		for (Deferred call : calls) {
			try {
				this.enqueuer.send(call.queue(), call.serialized(), call.options());
			}
			catch (RuntimeException ex) {
				failed++;
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw new QueueException("The transaction committed, but " + failed + " of the " + calls.size()
					+ " enqueue call(s) deferred until its commit failed: " + failure.getMessage(), failure);
		}
	}

	private record Deferred(String queue, List<byte[]> serialized, JobOptions options) {
	}

}
