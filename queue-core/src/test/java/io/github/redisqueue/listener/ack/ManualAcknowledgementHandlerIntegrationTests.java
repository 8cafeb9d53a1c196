package io.github.redisqueue.listener.ack;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.fetch.RunningJob;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AcknowledgementMode#MANUAL}: what the listener settled stays as it settled it; a job it
 * returned from unsettled is left to its lease, one it threw on unsettled is retried.
 */
class ManualAcknowledgementHandlerIntegrationTests extends AbstractAcknowledgementHandlerIntegrationTests {

	ManualAcknowledgementHandlerIntegrationTests() {
		super(AcknowledgementMode.MANUAL, ManualAcknowledgementHandler.class);
	}

	@Test
	void jobTheListenerCompletedIsCompletedOnce() {
		RunningJob job = reserve();
		ListenerAcknowledgement ack = new ListenerAcknowledgement(this.queues, job);
		this.acks.setSentWithReserve(true); // a completion the handler adds would wait here

		assertThat(this.handler.beforeInvoke(job)).isTrue();
		assertThat(ack.complete()).isEqualTo(AckResult.OK);
		this.handler.onSuccess(job, ack);

		assertThat(this.acks.pendingCount()).as("completions added by the handler").isZero();
		assertThat(state(job)).isEmpty();
		assertThat(total("completed")).isEqualTo(1);
	}

	@Test
	void jobLeftUnsettledStaysHeldAndIsNoLongerExtended() {
		RunningJob job = reserve();

		this.handler.onSuccess(job, new ListenerAcknowledgement(this.queues, job));

		assertThat(state(job)).contains(JobState.ACTIVE);
		assertThat(job.isExtendable()).as("left to run out, then delivered again").isFalse();
		assertThat(total("completed")).isZero();
		assertThat(total("failed")).isZero();
	}

	@Test
	void throwingWithoutSettlingRetriesTheJob() {
		RunningJob job = reserve();
		job.stopExtending();

		this.handler.onError(job, new ListenerAcknowledgement(this.queues, job), new IllegalStateException("boom"));

		assertThat(state(job)).contains(JobState.DELAYED);
		assertThat(total("failed")).isEqualTo(1);
	}

	@Test
	void throwingAfterSettlingKeepsWhatTheListenerChose() {
		RunningJob job = reserve();
		ListenerAcknowledgement ack = new ListenerAcknowledgement(this.queues, job);
		assertThat(ack.release()).isEqualTo(AckResult.OK);

		this.handler.onError(job, ack, new IllegalStateException("boom"));

		assertThat(this.queues.failureCalls).as("failures recorded for a settled job").hasValue(0);
		assertThat(state(job)).contains(JobState.READY);
		assertThat(info(job).orElseThrow().attempts()).as("a release counts no attempt").isZero();
		assertThat(this.deadLettered).isEmpty();
	}

}
