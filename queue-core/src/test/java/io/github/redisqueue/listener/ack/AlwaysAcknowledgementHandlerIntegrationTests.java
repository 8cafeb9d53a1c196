package io.github.redisqueue.listener.ack;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.fetch.RunningJob;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AcknowledgementMode#ALWAYS}: a job is completed whether its listener returns or throws.
 * Returning takes the same path as in {@link AcknowledgementMode#ON_SUCCESS}, lost lease
 * included.
 */
class AlwaysAcknowledgementHandlerIntegrationTests extends AbstractAcknowledgementHandlerIntegrationTests {

	AlwaysAcknowledgementHandlerIntegrationTests() {
		super(AcknowledgementMode.ALWAYS, AlwaysAcknowledgementHandler.class);
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

}
