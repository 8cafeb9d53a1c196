package io.github.redisqueue.listener.ack;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.fetch.RunningJob;
import io.github.redisqueue.listener.retry.FailureHandler;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.RedisConnectionFailureException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AcknowledgementMode#AT_MOST_ONCE}: a job is completed before its listener runs, and the
 * listener runs only when Redis accepted that completion; a failure is reported to the
 * dead-letter callback and never retried.
 */
class AtMostOnceAcknowledgementHandlerIntegrationTests extends AbstractAcknowledgementHandlerIntegrationTests {

	AtMostOnceAcknowledgementHandlerIntegrationTests() {
		super(AcknowledgementMode.AT_MOST_ONCE, AtMostOnceAcknowledgementHandler.class);
	}

	@Test
	void jobIsCompletedBeforeTheListenerRuns() {
		RunningJob job = reserve();

		assertThat(this.handler.beforeInvoke(job)).isTrue();

		assertThat(state(job)).isEmpty();
		assertThat(total("completed")).isEqualTo(1);
		assertThat(job.isExtendable()).isFalse();
	}

	@Test
	void jobWhoseLeaseWasLostDoesNotRun() {
		RunningJob job = reserve();
		loseLease(job);

		assertThat(this.handler.beforeInvoke(job)).isFalse();

		assertThat(state(job)).contains(JobState.ACTIVE);
		assertThat(total("completed")).isZero();
	}

	@Test
	void jobSomeoneElseReservedSinceDoesNotRun() {
		RunningJob job = reserve();
		// taken from this worker behind its back (as a reaper would after a lost lease), then
		// reserved by another consumer: this worker's token is stale
		assertThat(this.queues.releaseWorker(QUEUE, WORKER)).isEqualTo(1);
		List<ReservedJob> stolen = this.queues.reserve(QUEUE, 1, Duration.ofMinutes(1));
		assertThat(stolen).extracting(ReservedJob::id).containsExactly(job.job().id());

		assertThat(this.handler.beforeInvoke(job)).isFalse();

		assertThat(state(job)).contains(JobState.ACTIVE);
		assertThat(this.queues.complete(QUEUE, stolen.get(0).ref())).as("the other consumer's completion")
			.isEqualTo(AckResult.OK);
	}

	@Test
	void jobWhoseCompletionGetsNoAnswerDoesNotRun() {
		QueueTemplate unanswered = new QueueTemplate(this.connectionFactory) {
			@Override
			public AckResult complete(String queue, JobRef job) {
				throw new RedisConnectionFailureException("simulated: connection reset");
			}
		};
		FailureHandler failures = new FailureHandler(unanswered, QUEUE, ContainerOptions.defaults(), null);
		AcknowledgementHandler handler = AcknowledgementHandler.of(AcknowledgementMode.AT_MOST_ONCE, QUEUE,
				unanswered, this.acks, failures);
		RunningJob job = reserve();

		assertThat(handler.beforeInvoke(job)).isFalse();

		assertThat(state(job)).contains(JobState.ACTIVE);
	}

	@Test
	void throwingIsReportedToTheCallbackAndNotRetried() {
		RunningJob job = reserve();
		assertThat(this.handler.beforeInvoke(job)).isTrue();
		IllegalStateException failure = new IllegalStateException("boom");

		this.handler.onError(job, new ListenerAcknowledgement(this.queues, job), failure);

		assertThat(this.deadLettered).containsEntry(job.job().id(), failure);
		assertThat(state(job)).as("completed at the start, not retried").isEmpty();
		assertThat(total("failed")).isZero();
		assertThat(this.admin.deadLetters(QUEUE, 0, 10)).isEmpty();
	}

	@Test
	void returningChangesNothingMore() {
		RunningJob job = reserve();
		assertThat(this.handler.beforeInvoke(job)).isTrue();
		this.acks.setSentWithReserve(true); // a completion the handler adds would wait here

		this.handler.onSuccess(job, new ListenerAcknowledgement(this.queues, job));

		assertThat(this.acks.pendingCount()).isZero();
		assertThat(total("completed")).isEqualTo(1);
	}

}
