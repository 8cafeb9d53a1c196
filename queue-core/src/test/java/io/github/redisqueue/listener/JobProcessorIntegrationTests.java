package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.ack.AckBatcher;
import io.github.redisqueue.listener.ack.AcknowledgementHandler;
import io.github.redisqueue.listener.fetch.RunningJob;
import io.github.redisqueue.listener.retry.FailureHandler;
import io.github.redisqueue.support.micrometer.QueueListenerContext;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One job through {@link JobProcessor} on a real Redis: the mode's steps around the listener,
 * the listener inside its observation, the acknowledgement it is given, and a failure after a
 * lost lease that settles nothing.
 */
class JobProcessorIntegrationTests extends AbstractRedisIntegrationTests {

	private static final String QUEUE = "processed";

	private QueueTemplate queues;

	// counts and jobs
	private QueueAdminOperations admin;

	private FailureHandler failures;

	@BeforeEach
	void createParts() {
		this.queues = new QueueTemplate(this.connectionFactory);
		this.admin = new QueueAdmin(this.queues);
		this.failures = new FailureHandler(this.queues, QUEUE, ContainerOptions.defaults(), null);
	}

	@AfterEach
	void clearInterrupt() {
		Thread.interrupted();
	}

	@Test
	void listenerRunsInsideItsObservationWhichRecordsTheFailure() {
		List<Observation.Context> started = new CopyOnWriteArrayList<>();
		List<Throwable> errors = new CopyOnWriteArrayList<>();
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStart(Observation.Context context) {
				started.add(context);
			}

			@Override
			public void onError(Observation.Context context) {
				errors.add(context.getError());
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		AtomicReference<Observation> current = new AtomicReference<>();
		IllegalStateException failure = new IllegalStateException("boom");
		JobProcessor processor = processor((job, ack) -> {
			current.set(observations.getCurrentObservation());
			throw failure;
		});
		processor.setObservationRegistry(observations);
		RunningJob job = reserve();

		processor.process(job, handler(AcknowledgementMode.ON_SUCCESS));

		assertThat(current.get()).as("observation in scope while the listener runs").isNotNull();
		assertThat(started).singleElement().isInstanceOfSatisfying(QueueListenerContext.class, (context) -> {
			assertThat(context.getListenerId()).isEqualTo("processor");
			assertThat(context.getJobId()).isEqualTo(job.job().id());
			assertThat(context.getQueue()).isEqualTo(job.job().queue());
		});
		assertThat(errors).containsExactly(failure);
		assertThat(state(job)).as("retried after the back-off").contains(JobState.DELAYED);
	}

	@Test
	void listenerSettlesItsJobThroughTheAcknowledgementItIsGiven() {
		AtomicReference<AckResult> result = new AtomicReference<>();
		JobProcessor processor = processor((job, ack) -> result.set(ack.complete()));
		RunningJob job = reserve();

		processor.process(job, handler(AcknowledgementMode.MANUAL));

		assertThat(result.get()).isEqualTo(AckResult.OK);
		assertThat(state(job)).isEmpty();
		assertThat(this.admin.counts(QUEUE).total("completed")).isEqualTo(1);
	}

	@Test
	void failureAfterTheLeaseWasLostSettlesNothing() {
		RunningJob job = reserve();
		JobProcessor processor = processor((reserved, ack) -> {
			// the lease keeper finds the lease lost while the listener runs
			job.loseLease();
			Thread.interrupted();
			throw new IllegalStateException("failed after its lease ran out");
		});

		processor.process(job, handler(AcknowledgementMode.ON_SUCCESS));

		assertThat(state(job)).as("left to whoever holds it now").contains(JobState.ACTIVE);
		assertThat(this.admin.counts(QUEUE).total("failed")).isZero();
		assertThat(this.admin.counts(QUEUE).total("dead")).isZero();
	}

	@Test
	void jobTheModeRefusesBeforeTheListenerNeverReachesIt() {
		AtomicBoolean called = new AtomicBoolean();
		JobProcessor processor = processor((job, ack) -> called.set(true));
		RunningJob job = reserve();
		job.loseLease();
		Thread.interrupted();

		processor.process(job, handler(AcknowledgementMode.AT_MOST_ONCE));

		assertThat(called).isFalse();
		assertThat(state(job)).contains(JobState.ACTIVE);
	}

	private JobProcessor processor(JobListener listener) {
		return new JobProcessor("processor", QUEUE, this.queues, listener, this.failures);
	}

	private AcknowledgementHandler handler(AcknowledgementMode mode) {
		return AcknowledgementHandler.of(mode, QUEUE, this.queues, new AckBatcher(this.queues, QUEUE), this.failures);
	}

	private RunningJob reserve() {
		this.queues.enqueue(QUEUE, "work");
		ReservedJob job = this.queues.reserveBatch(QUEUE, 1, Duration.ofSeconds(30), "worker#processor").jobs().get(0);
		RunningJob running = new RunningJob(job);
		running.started(Thread.currentThread());
		return running;
	}

	private Optional<JobState> state(RunningJob job) {
		return this.admin.job(QUEUE, job.job().id()).map(JobInfo::state);
	}

}
