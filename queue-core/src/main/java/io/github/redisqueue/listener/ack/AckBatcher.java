package io.github.redisqueue.listener.ack;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit of completions. A finished job's acknowledgement joins a queue. While the fetch
 * loop is running it takes the pending acknowledgements along with its next reserve (one script
 * call finishes and fetches); while the loop is blocked on an empty queue, whichever handler
 * thread finds no flush under way sends everything pending in one call. Under load many jobs
 * share a call; when idle each acknowledgement goes out at once.
 *
 * @since 0.1.0
 */
public final class AckBatcher {

	private static final Logger logger = LoggerFactory.getLogger(AckBatcher.class);

	private static final int MAX_BATCH = 1000;

	private final QueueOperations operations;

	private final String queue;

	private final ConcurrentLinkedQueue<JobRef> pending = new ConcurrentLinkedQueue<>();

	private final ReentrantLock flushLock = new ReentrantLock();

	private volatile boolean carried;

	public AckBatcher(QueueOperations operations, String queue) {
		this.operations = operations;
		this.queue = queue;
	}

	/**
	 * Acknowledge a job: it is sent now, or with the flush under way.
	 * @param job the job
	 */
	public void complete(JobRef job) {
		this.pending.add(job);
		if (!this.carried) {
			flushIfIdle();
		}
	}

	/**
	 * Say whether the fetch loop will carry pending acknowledgements with its next reserve. When
	 * it stops carrying (it is about to block), what is pending is sent now.
	 * @param carried whether the loop carries them
	 */
	public void setCarried(boolean carried) {
		this.carried = carried;
		if (!carried) {
			flushIfIdle();
		}
	}

	/**
	 * Take what is pending, for the fetch loop to send with its reserve.
	 * @return the pending acknowledgements, at most 1,000
	 */
	public List<JobRef> drain() {
		List<JobRef> batch = new ArrayList<>();
		JobRef next;
		while (batch.size() < MAX_BATCH && (next = this.pending.poll()) != null) {
			batch.add(next);
		}
		return batch;
	}

	/** Send what is pending unless another thread is sending. */
	public void flushIfIdle() {
		while (!this.pending.isEmpty() && this.flushLock.tryLock()) {
			try {
				send();
			}
			finally {
				this.flushLock.unlock();
			}
		}
	}

	/** Send everything pending, waiting for a flush under way. */
	public void flush() {
		this.flushLock.lock();
		try {
			while (!this.pending.isEmpty()) {
				send();
			}
		}
		finally {
			this.flushLock.unlock();
		}
	}

	private void send() {
		List<JobRef> batch = drain();
		if (batch.isEmpty()) {
			return;
		}
		try {
			List<AckResult> results = this.operations.completeAll(this.queue, batch);
			for (int i = 0; i < results.size(); i++) {
				if (results.get(i) != AckResult.OK) {
					logger.warn("Completion of job {} in queue '{}' refused: {} (its lease ran out and it was handed on)",
							batch.get(i).id(), this.queue, results.get(i));
				}
			}
		}
		catch (RuntimeException ex) {
			// not acknowledged: the leases run out and the jobs are delivered again (at least once)
			logger.error("Could not acknowledge {} jobs of queue '{}'; they will be delivered again", batch.size(),
					this.queue, ex);
		}
	}

}
