package io.github.redisqueue.listener.ack;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.fetch.RunningJob;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AcknowledgementMode#ON_SUCCESS}: a job whose listener returns is completed, one whose
 * listener throws is retried after the back-off or, on its last attempt, dead-lettered.
 */
class OnSuccessAcknowledgementHandlerIntegrationTests extends AbstractAcknowledgementHandlerIntegrationTests {

	OnSuccessAcknowledgementHandlerIntegrationTests() {
		super(AcknowledgementMode.ON_SUCCESS, OnSuccessAcknowledgementHandler.class);
	}

	@Test
	void listenerRunsAndReturningCompletesTheJob() {
		RunningJob job = reserve();

		assertThat(this.handler.beforeInvoke(job)).isTrue();
		assertThat(state(job)).as("untouched before the listener").contains(JobState.ACTIVE);
		this.handler.onSuccess(job, new ListenerAcknowledgement(this.queues, job));

		assertThat(state(job)).isEmpty();
		assertThat(total("completed")).isEqualTo(1);
		assertThat(job.isExtendable()).isFalse();
	}

	@Test
	void returningAfterTheLeaseWasLostCompletesNothing() {
		RunningJob job = reserve();
		loseLease(job);

		this.handler.onSuccess(job, new ListenerAcknowledgement(this.queues, job));

		assertThat(state(job)).contains(JobState.ACTIVE);
		assertThat(total("completed")).isZero();
	}

	@Test
	void throwingRetriesTheJobAfterTheBackOff() {
		RunningJob job = reserve();
		job.stopExtending();

		this.handler.onError(job, new ListenerAcknowledgement(this.queues, job), new IllegalStateException("boom"));

		assertThat(state(job)).contains(JobState.DELAYED);
		assertThat(info(job).orElseThrow().lastError()).contains("IllegalStateException: boom");
		assertThat(total("failed")).isEqualTo(1);
		assertThat(this.deadLettered).isEmpty();
	}

	@Test
	void throwingOnTheLastAttemptDeadLettersTheJobAndTellsTheCallback() {
		RunningJob job = reserve(JobOptions.builder().maxAttempts(1).build());
		job.stopExtending();

		this.handler.onError(job, new ListenerAcknowledgement(this.queues, job), new IllegalStateException("boom"));

		assertThat(state(job)).contains(JobState.DEAD);
		assertThat(this.deadLettered).containsOnlyKeys(job.job().id());
		assertThat(this.deadLettered.get(job.job().id())).hasMessage("boom");
	}

}
