package io.github.redisqueue.support.micrometer;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.QueueListenerContainer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Each listener invocation is an Observation: with a meter handler it becomes the timer
 * {@code queue.listener} tagged with queue, listener id and error.
 */
class ListenerObservationIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void listenerInvocationsAreTimedWithQueueListenerAndErrorTags() {
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueListenerContainer container = new QueueListenerContainer("observed", "obs", queues, (job, ack) -> {
			if (job.payloadAsString().contains("bad")) {
				throw new IllegalStateException("bad job");
			}
		}, ContainerOptions.builder().pollInterval(Duration.ofMillis(100)).build(), null, null);
		container.setObservationRegistry(observations);
		container.start();
		try {
			queues.enqueueAll("obs", List.of("ok-1", "ok-2"), JobOptions.defaults());
			queues.enqueue("obs", "bad", JobOptions.builder().maxAttempts(1).build());

			await().atMost(Duration.ofSeconds(10)).until(() -> timer(meters, "none") != null
					&& timer(meters, "none").count() == 2 && timer(meters, "IllegalStateException") != null);
			assertThat(timer(meters, "IllegalStateException").count()).isEqualTo(1);
			assertThat(meters.get("queue.listener").tag("queue", "obs").tag("listener.id", "observed").timers())
				.isNotEmpty();
			assertThat(meters.find("queue.listener").tagKeys("job.id").timer()).isNull();
		}
		finally {
			container.stop();
		}
	}

	private static Timer timer(SimpleMeterRegistry meters, String error) {
		return meters.find("queue.listener").tag("queue", "obs").tag("error", error).timer();
	}

}
