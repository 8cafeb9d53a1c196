package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.core.metrics.QueueMetricsBinder;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Queue gauges follow the Redis counts within one refresh interval, new queues included; the
 * batch gauges sum the sub-jobs of every open batch, and finished batches are counted.
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
			await().atMost(Duration.ofSeconds(30))
				.until(() -> gauge(registry, "queue.jobs", "emails", "ready") == 3
						&& registry.find("queue.throughput").tag("queue", "emails").gauge() != null);

			assertThat(registry.get("queue.throughput").tag("queue", "emails").gauge().value()).isZero();
			queues.complete("emails", queues.reserve("emails", 1, Duration.ofMinutes(1)).get(0).ref());
			await().atMost(Duration.ofSeconds(30))
				.until(() -> registry.get("queue.throughput").tag("queue", "emails").gauge().value() > 0);

			queues.enqueue("emails", 4);
			queues.reserve("emails", 1, Duration.ofMinutes(1));
			queues.enqueue("sms", "x", JobOptions.builder().delay(Duration.ofHours(1)).build());
			admin.pause("emails");

			// a refresh may fall between the enqueue and the pause: wait for one that saw all of it
			await().atMost(Duration.ofSeconds(30))
				.until(() -> gauge(registry, "queue.jobs", "emails", "in_flight") == 1
						&& gauge(registry, "queue.jobs", "emails", "ready") == 2
						&& gauge(registry, "queue.jobs", "sms", "delayed") == 1
						&& registry.get("queue.paused").tag("queue", "emails").gauge().value() == 1);
			assertThat(registry.get("queue.head.age").tag("queue", "emails").timeGauge().value()).isGreaterThanOrEqualTo(0);
		}
	}

	@Test
	void batchMetersSumTheOpenBatchesAndCountFinishedOnes() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		Batch capped = queues.batch("resize").maxConcurrency(2).addAll(List.of(1, 2, 3, 4, 5)).submit();
		queues.batch("resize").maxConcurrency(1).addAll(List.of(6, 7, 8)).open().cancel();
		Batch single = queues.batch("resize").maxConcurrency(1).addAll(List.of(9, 10, 11)).open();
		try (QueueMetricsBinder binder = new QueueMetricsBinder(admin, Duration.ofMillis(100))) {
			binder.bindTo(registry);
			await().atMost(Duration.ofSeconds(30))
				.until(() -> gauge(registry, "queue.batch.jobs", "resize", "waiting") == 3 + 2
						&& gauge(registry, "queue.batch.jobs", "resize", "active") == 2 + 1
						&& registry.find("queue.batches.finished").tag("state", "cancelled").functionCounter() != null);
			assertThat(registry.get("queue.batches.open").tag("queue", "resize").gauge().value()).isEqualTo(2);
			assertThat(finished(registry, "cancelled")).isEqualTo(1);
			assertThat(finished(registry, "completed")).isZero();

			capped.cancel();
			single.seal();
			for (int i = 0; i < 3; i++) {
				queues.complete("resize", queues.reserve("resize", 1, Duration.ofMinutes(1)).get(0).ref());
			}

			await().atMost(Duration.ofSeconds(30))
				.until(() -> finished(registry, "completed") == 1 && finished(registry, "cancelled") == 2
						&& gauge(registry, "queue.batch.jobs", "resize", "waiting") == 0
						&& gauge(registry, "queue.batch.jobs", "resize", "active") == 0);
			assertThat(registry.get("queue.batches.open").tag("queue", "resize").gauge().value()).isZero();
		}
	}

	@Test
	void groupGaugesCountGroupedJobsWaitingAndAdmitted() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		for (int i = 0; i < 4; i++) {
			queues.enqueue("tenants", "job-" + i, JobOptions.builder().group("customer-" + (i % 2)).build());
		}
		try (QueueMetricsBinder binder = new QueueMetricsBinder(new QueueAdmin(queues), Duration.ofMillis(100))) {
			binder.bindTo(registry);
			await().atMost(Duration.ofSeconds(30))
				.until(() -> gauge(registry, "queue.group.jobs", "tenants", "waiting") == 2
						&& gauge(registry, "queue.group.jobs", "tenants", "active") == 2);
		}
	}

	@Test
	void batchGaugesSumEveryPageOfOpenBatches() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		int batches = QueueAdmin.MAX_BATCH_PAGE + 5;
		for (int i = 0; i < batches; i++) {
			queues.batch("many").maxConcurrency(1).addAll(List.of(1, 2)).submit();
		}
		try (QueueMetricsBinder binder = new QueueMetricsBinder(admin, Duration.ofMillis(100))) {
			binder.bindTo(registry);
			await().atMost(Duration.ofSeconds(30))
				.until(() -> gauge(registry, "queue.batch.jobs", "many", "waiting") == batches
						&& gauge(registry, "queue.batch.jobs", "many", "active") == batches);
		}
	}

	@Test
	void workersGaugeCountsTheLiveWorkersOfEachQueue() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		queues.enqueue("mails", 1);
		queues.enqueue("idle", 2);
		admin.heartbeat(new WorkerInfo("worker-a", "host", List.of("mails", "mails"), 0, null, null),
				Duration.ofMinutes(1));
		admin.heartbeat(new WorkerInfo("worker-b", "host", List.of("mails", "other"), 0, null, null),
				Duration.ofMinutes(1));
		try (QueueMetricsBinder binder = new QueueMetricsBinder(admin, Duration.ofMillis(100))) {
			binder.bindTo(registry);
			await().atMost(Duration.ofSeconds(30))
				.until(() -> workers(registry, "mails") == 2 && workers(registry, "idle") == 0);
		}
	}

	private static double workers(SimpleMeterRegistry registry, String queue) {
		var gauge = registry.find("queue.workers").tag("queue", queue).gauge();
		return (gauge != null) ? gauge.value() : -1;
	}

	private static double finished(SimpleMeterRegistry registry, String state) {
		return registry.get("queue.batches.finished")
			.tag("queue", "resize")
			.tag("state", state)
			.functionCounter()
			.count();
	}

	private static double gauge(SimpleMeterRegistry registry, String name, String queue, String state) {
		var gauge = registry.find(name).tag("queue", queue).tag("state", state).gauge();
		return (gauge != null) ? gauge.value() : -1;
	}

}
