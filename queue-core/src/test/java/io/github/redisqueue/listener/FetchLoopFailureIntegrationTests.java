package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.Reservation;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A fetch loop told by the engine that its call is invalid (a programming or configuration
 * error, not an outage) stops and reports it, so health shows it, instead of retrying forever.
 */
class FetchLoopFailureIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void illegalArgumentFromTheEngineStopsTheLoopAndIsReported() {
		AtomicInteger reserves = new AtomicInteger();
		QueueTemplate queues = new QueueTemplate(this.connectionFactory) {
			@Override
			public Reservation reserveBatch(String queue, int max, Duration lease, String workerId,
					Collection<JobRef> completions, int maxAttempts, int startNow) {
				reserves.incrementAndGet();
				throw new IllegalArgumentException("Reserve count " + max + " is out of range (simulated engine limit)");
			}
		};
		QueueListenerContainer container = new QueueListenerContainer("invalid", "invalid", queues, (job, ack) -> {
		}, ListenerTestSupport.fast(ContainerOptions.defaults()), null, null);
		container.start();
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> container.getFailure() != null);
			assertThat(container.getFailure()).isInstanceOf(IllegalArgumentException.class)
				.hasMessageContaining("out of range");
			assertThat(container.isRunning()).isTrue();
			// not retried: several poll intervals later it is still the one call
			await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(30)).until(() -> reserves.get() == 1);
		}
		finally {
			container.stop();
		}
		assertThat(container.getFailure()).isNull();
	}

}
