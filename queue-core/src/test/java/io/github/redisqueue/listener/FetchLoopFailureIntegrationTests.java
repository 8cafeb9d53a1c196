package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.Reservation;
import io.github.redisqueue.core.metrics.MicrometerJobEvents;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A fetch loop told by the engine that its call is invalid (a programming or configuration
 * error, not an outage) stops and reports it, so health shows it, instead of retrying forever;
 * failed fetches are counted in {@code queue.fetch.failures}, retried or stopped.
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

	@Test
	void failedFetchesAreCountedAsRetriedOrStoppedFromZero() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		AtomicInteger outage = new AtomicInteger(3);
		QueueTemplate flaky = new QueueTemplate(this.connectionFactory) {
			@Override
			public Reservation reserveBatch(String queue, int max, Duration lease, String workerId,
					Collection<JobRef> completions, int maxAttempts, int startNow) {
				if (outage.getAndDecrement() > 0) {
					throw new QueryTimeoutException("Redis did not answer (simulated outage)");
				}
				return super.reserveBatch(queue, max, lease, workerId, completions, maxAttempts, startNow);
			}
		};
		flaky.setJobEvents(new MicrometerJobEvents(registry));
		AtomicInteger handled = new AtomicInteger();
		flaky.enqueue("flaky", "job");
		QueueListenerContainer container = new QueueListenerContainer("flaky", "flaky", flaky,
				(job, ack) -> handled.incrementAndGet(), ListenerTestSupport.fast(ContainerOptions.defaults()), null,
				null);
		container.start();
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> handled.get() == 1);
			assertThat(fetchFailures(registry, "flaky", "retried")).isEqualTo(3);
			// registered at zero when the loop started, so that the first one is an increase
			assertThat(fetchFailures(registry, "flaky", "stopped")).isZero();
		}
		finally {
			container.stop();
		}

		QueueTemplate invalid = new QueueTemplate(this.connectionFactory) {
			@Override
			public Reservation reserveBatch(String queue, int max, Duration lease, String workerId,
					Collection<JobRef> completions, int maxAttempts, int startNow) {
				throw new IllegalArgumentException("Reserve count " + max + " is out of range (simulated engine limit)");
			}
		};
		invalid.setJobEvents(new MicrometerJobEvents(registry));
		QueueListenerContainer stopping = new QueueListenerContainer("invalid", "invalid", invalid, (job, ack) -> {
		}, ListenerTestSupport.fast(ContainerOptions.defaults()), null, null);
		stopping.start();
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> stopping.getFailure() != null);
			await().atMost(Duration.ofSeconds(30)).until(() -> fetchFailures(registry, "invalid", "stopped") == 1);
			assertThat(fetchFailures(registry, "invalid", "retried")).isZero();
		}
		finally {
			stopping.stop();
		}
	}

	private static double fetchFailures(SimpleMeterRegistry registry, String queue, String kind) {
		Counter counter = registry.find("queue.fetch.failures").tag("queue", queue).tag("kind", kind).counter();
		return (counter != null) ? counter.count() : -1;
	}

}
