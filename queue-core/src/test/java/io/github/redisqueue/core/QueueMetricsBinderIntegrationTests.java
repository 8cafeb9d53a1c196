package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Queue gauges follow the Redis counts within one refresh interval, new queues included.
 */
class QueueMetricsBinderIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void gaugesReflectRedisCountsWithinOneRefresh() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		queues.enqueueAll("emails", List.of(1, 2, 3), JobOptions.defaults());
		try (QueueMetricsBinder binder = new QueueMetricsBinder(admin, Duration.ofMillis(100))) {
			binder.bindTo(registry);
			// one refresh registers every meter of a queue, but the wait may see some before others
			await().atMost(Duration.ofSeconds(5))
				.until(() -> gauge(registry, "emails", "ready") == 3
						&& registry.find("queue.throughput").tag("queue", "emails").gauge() != null);

			assertThat(registry.get("queue.throughput").tag("queue", "emails").gauge().value()).isZero();
			queues.complete("emails", queues.reserve("emails", 1, Duration.ofMinutes(1)).get(0).ref());
			await().atMost(Duration.ofSeconds(5))
				.until(() -> registry.get("queue.throughput").tag("queue", "emails").gauge().value() > 0);

			queues.enqueue("emails", 4);
			queues.reserve("emails", 1, Duration.ofMinutes(1));
			queues.enqueue("sms", "x", JobOptions.builder().delay(Duration.ofHours(1)).build());
			admin.pause("emails");

			// a refresh may fall between the enqueue and the pause: wait for one that saw all of it
			await().atMost(Duration.ofSeconds(5)).until(() -> gauge(registry, "emails", "in_flight") == 1
					&& gauge(registry, "emails", "ready") == 2 && gauge(registry, "sms", "delayed") == 1
					&& registry.get("queue.paused").tag("queue", "emails").gauge().value() == 1);
			assertThat(registry.get("queue.head.age").tag("queue", "emails").timeGauge().value()).isGreaterThanOrEqualTo(0);
		}
	}

	private static double gauge(SimpleMeterRegistry registry, String queue, String state) {
		var gauge = registry.find("queue.jobs").tag("queue", queue).tag("state", state).gauge();
		return (gauge != null) ? gauge.value() : -1;
	}

}
