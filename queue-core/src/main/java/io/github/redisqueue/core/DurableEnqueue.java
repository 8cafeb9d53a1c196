package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.core.enqueue.JobEnqueuer;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueScriptExecutor;

import org.springframework.dao.QueryTimeoutException;

/**
 * Enqueues that return only once Redis replicated them: after the enqueue script, {@code WAIT}
 * on the same connection waits until {@code replicas} replicas acknowledged its writes, at most
 * {@code timeout}. A failover then promotes a replica that has the job, so an acknowledged
 * enqueue is not lost with its master (as long as the promoted replica is one that acknowledged;
 * Sentinel and Cluster prefer the most up-to-date replica). When fewer replicas answer in time
 * the enqueue fails with a {@link QueueException} naming the counts; the jobs exist on the master
 * all the same and may or may not survive a failover, so retry with an idempotency key. Adding
 * sub-jobs to a batch waits the same way.
 *
 * @param replicas replicas that must acknowledge each enqueue; 0 turns the wait off
 * @param timeout longest wait for them, from 1 ms to 1 minute
 * @since 0.1.0
 */
public record DurableEnqueue(int replicas, Duration timeout) {

	/** No waiting for replicas. */
	public static final DurableEnqueue OFF = new DurableEnqueue(0, Duration.ofSeconds(1));

	/** Validates the values. */
	public DurableEnqueue {
		if (replicas < 0 || replicas > 100) {
			throw new IllegalArgumentException("Durable enqueue replicas " + replicas + " must be from 0 to 100");
		}
		if (timeout.compareTo(Duration.ofMillis(1)) < 0 || timeout.compareTo(Duration.ofMinutes(1)) > 0) {
			throw new IllegalArgumentException("Durable enqueue timeout " + timeout + " must be from 1 ms to 1 minute");
		}
	}

	/**
	 * Runs the enqueue script, waiting for Redis at most {@code timeout} and then for the replicas,
	 * and turns a timeout or an exhausted sequence into a {@link QueueException}.
	 */
	public List<Object> run(QueueScriptExecutor executor, String queue, QueueKeys k, List<byte[]> extraKeys,
			List<byte[]> args, Duration timeout) {
		try {
			if (this.replicas > 0) {
				return check(queue, executor.runReplicated(executor.scripts().enqueue(), k, extraKeys, args, timeout,
						this.replicas, this.timeout));
			}
			return executor.runWithin(executor.scripts().enqueue(), k, extraKeys, args, timeout);
		}
		catch (QueryTimeoutException ex) {
			throw new QueueException(ex.getMessage(), ex);
		}
		catch (RuntimeException ex) {
			throw JobEnqueuer.failure(queue, ex);
		}
	}

	/**
	 * Adds sub-jobs to a batch ({@code args} of {@code batch.lua}'s 'add') and waits for the
	 * replicas; fewer in time fail with a {@link QueueException}.
	 */
	public List<Object> runBatchAdd(QueueScriptExecutor executor, String queue, String batchId, QueueKeys k,
			List<byte[]> args, Duration timeout) {
		QueueScriptExecutor.Replicated replicated = executor.runReplicated(executor.scripts().batch(), k, List.of(),
				args, timeout, this.replicas, this.timeout);
		if (replicated.replicas() < this.replicas) {
			throw new QueueException("Adding to batch '" + batchId + "' of queue '" + queue + "' reached "
					+ replicated.replicas() + " of " + this.replicas + " replicas within " + this.timeout
					+ "; its sub-jobs were added on the master but may be lost if it fails now (adding them again "
					+ "would add them twice)");
		}
		return replicated.reply();
	}

	private List<Object> check(String queue, QueueScriptExecutor.Replicated replicated) {
		if (replicated.replicas() < this.replicas) {
			throw new QueueException("Enqueue to queue '" + queue + "' reached " + replicated.replicas() + " of "
					+ this.replicas + " replicas within " + this.timeout + "; its jobs exist on the master but may be "
					+ "lost if it fails now: retry with an idempotency key");
		}
		return replicated.reply();
	}

}
