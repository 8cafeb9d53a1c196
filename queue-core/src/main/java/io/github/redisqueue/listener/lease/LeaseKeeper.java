package io.github.redisqueue.listener.lease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

import io.github.redisqueue.core.ExtendResult;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueOperations;
import io.github.redisqueue.listener.fetch.RunningJob;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Extends the leases of every job a container holds (running, or reserved ahead and waiting),
 * and of its finished jobs whose acknowledgements are not answered yet, in one script call per
 * interval (per partition), in every acknowledgement mode. A job whose extension is refused
 * has lost its lease (it ran out and the job was handed on): its handler thread is interrupted
 * and its result will not be acknowledged, or, if it has not started, it never runs here. A job
 * settled meanwhile is left alone.
 */
public final class LeaseKeeper implements Runnable {

	private static final Logger logger = LoggerFactory.getLogger(LeaseKeeper.class);

	private final QueueOperations operations;

	private final String queue;

	private final Duration lease;

	private final Supplier<Collection<RunningJob>> running;

	private final Supplier<Collection<JobRef>> completing;

	/**
	 * @param operations the engine
	 * @param queue the queue name
	 * @param lease the lease length each extension sets
	 * @param running the jobs the container holds now
	 */
	public LeaseKeeper(QueueOperations operations, String queue, Duration lease,
			Supplier<Collection<RunningJob>> running) {
		this(operations, queue, lease, running, List::of);
	}

	/**
	 * @param operations the engine
	 * @param queue the queue name
	 * @param lease the lease length each extension sets
	 * @param running the jobs the container holds now
	 * @param completing finished jobs whose acknowledgements Redis has not answered yet: their
	 * leases are extended too (a refusal means the acknowledgement landed, or the lease was lost,
	 * which the acknowledgement's own answer reports)
	 */
	public LeaseKeeper(QueueOperations operations, String queue, Duration lease,
			Supplier<Collection<RunningJob>> running, Supplier<Collection<JobRef>> completing) {
		this.operations = operations;
		this.queue = queue;
		this.lease = lease;
		this.running = running;
		this.completing = completing;
	}

	@Override
	public void run() {
		List<RunningJob> jobs = new ArrayList<>();
		for (RunningJob job : this.running.get()) {
			if (job.isExtendable()) {
				jobs.add(job);
			}
		}
		List<JobRef> refs = new ArrayList<>(jobs.size());
		jobs.forEach((job) -> refs.add(job.job().ref()));
		refs.addAll(this.completing.get());
		if (refs.isEmpty()) {
			return;
		}
		try {
			List<ExtendResult> results = this.operations.extendAll(this.queue, refs, this.lease);
			// those past the held jobs are acknowledgements under way: nothing to do either way
			for (int i = 0; i < jobs.size(); i++) {
				RunningJob job = jobs.get(i);
				// a job settled while the call was under way is gone or no longer held: nothing lost,
				// and its thread (which may be sending acknowledgements) is not interrupted
				if (!results.get(i).extended() && job.loseLease()) {
					logger.warn("Lease of job {} in queue '{}' was lost ({}); {}", job.job().id(), this.queue,
							results.get(i).result(), job.hasStarted() ? "interrupting its handler, its result is not "
									+ "acknowledged" : "it does not run here");
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not extend {} leases of queue '{}'; retrying next interval", refs.size(), this.queue, ex);
		}
	}

}
