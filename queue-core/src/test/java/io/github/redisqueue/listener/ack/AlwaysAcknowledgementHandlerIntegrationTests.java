package io.github.redisqueue.listener.ack;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.fetch.RunningJob;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AcknowledgementMode#ALWAYS}: a job is completed whether its listener returns or throws,
 * unless its lease was lost first.
 */
class AlwaysAcknowledgementHandlerIntegrationTests extends AbstractAcknowledgementHandlerIntegrationTests {

	private AcknowledgementHandler handler;

	@BeforeEach
	void createHandler() {
		this.handler = handler(AcknowledgementMode.ALWAYS);
	}

	@Test
	void modeAlwaysSelectsThisHandler() {
		assertThat(this.handler).isInstanceOf(AlwaysAcknowledgementHandler.class);
	}

	@Test
	void returningCompletesTheJob() {
		RunningJob job = reserve();

		assertThat(this.handler.beforeInvoke(job)).isTrue();
		this.handler.onSuccess(job, new ListenerAcknowledgement(this.queues, job));

		assertThat(state(job)).isEmpty();
		assertThat(total("completed")).isEqualTo(1);
	}

	@Test
	void throwingCompletesTheJobAnywayWithoutRetryOrDeadLetter() {
		RunningJob job = reserve(JobOptions.builder().maxAttempts(1).build());
		job.stopExtending();

		this.handler.onError(job, new ListenerAcknowledgement(this.queues, job), new IllegalStateException("boom"));

		assertThat(state(job)).isEmpty();
		assertThat(total("completed")).isEqualTo(1);
		assertThat(total("failed")).isZero();
		assertThat(total("dead")).isZero();
		assertThat(this.deadLettered).isEmpty();
	}

	@Test
	void returningAfterTheLeaseWasLostCompletesNothing() {
		RunningJob job = reserve();
		loseLease(job);

		this.handler.onSuccess(job, new ListenerAcknowledgement(this.queues, job));

		assertThat(state(job)).contains(JobState.ACTIVE);
		assertThat(total("completed")).isZero();
	}

}
