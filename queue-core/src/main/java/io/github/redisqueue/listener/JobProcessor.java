package io.github.redisqueue.listener;

import io.github.redisqueue.core.QueueOperations;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.ack.AcknowledgementHandler;
import io.github.redisqueue.listener.fetch.RunningJob;
import io.github.redisqueue.listener.retry.FailureHandler;
import io.github.redisqueue.support.micrometer.QueueListenerContext;
import io.github.redisqueue.support.micrometer.QueueListenerObservationConvention;
import io.github.redisqueue.support.micrometer.QueueObservation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one job on its handler thread: the acknowledgement mode's step before the listener, the
 * listener call under an observation (handler duration and outcome as a timer, a span when
 * tracing is on), and the mode's step after it. A failure whose job's lease was lost meanwhile
 * settles nothing: someone else may hold the job now.
 */
final class JobProcessor {

	private static final Logger logger = LoggerFactory.getLogger(JobProcessor.class);

	private final String containerId;

	private final String queue;

	private final QueueOperations operations;

	private final JobListener listener;

	private final FailureHandler failures;

	private volatile ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private volatile @Nullable QueueListenerObservationConvention observationConvention;

	JobProcessor(String containerId, String queue, QueueOperations operations, JobListener listener,
			FailureHandler failures) {
		this.containerId = containerId;
		this.queue = queue;
		this.operations = operations;
		this.listener = listener;
		this.failures = failures;
	}

	void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
	}

	void setObservationConvention(@Nullable QueueListenerObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	/**
	 * Run a job that has started on this thread.
	 * @param running the job
	 * @param acknowledgements the handler of the container's acknowledgement mode
	 */
	void process(RunningJob running, AcknowledgementHandler acknowledgements) {
		ReservedJob job = running.job();
		if (!acknowledgements.beforeInvoke(running)) {
			return;
		}
		DefaultAcknowledgement ack = new DefaultAcknowledgement(this.operations, this.queue, running, this.failures);
		try {
			Object result = invoke(job, ack);
			if (result != null) {
				storeResult(job, result);
			}
			acknowledgements.onSuccess(running, ack);
		}
		catch (Throwable ex) {
			if (running.stopExtending()) {
				acknowledgements.onError(running, ack, ex);
			}
			else {
				logger.warn("Job {} of queue '{}' failed after its lease was lost: {}", job.id(), this.queue,
						ex.toString());
			}
		}
	}

	/** A result that cannot be stored is logged; the job still succeeded. */
	private void storeResult(ReservedJob job, Object result) {
		try {
			this.operations.storeResult(this.queue, job.id(), result);
		}
		catch (RuntimeException ex) {
			logger.warn("Result of job {} of queue '{}' is not stored: {}", job.id(), this.queue, ex.getMessage());
		}
	}

	private @Nullable Object invoke(ReservedJob job, Acknowledgement ack) throws Exception {
		Observation observation = QueueObservation.LISTENER.observation(this.observationConvention,
				QueueListenerObservationConvention.DEFAULT, () -> new QueueListenerContext(job.queue(), job.id(), job.headers(), this.containerId),
				this.observationRegistry);
		observation.start();
		try (Observation.Scope scope = observation.openScope()) {
			return this.listener.onJobWithResult(job, ack);
		}
		catch (Exception | Error ex) {
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

}
