package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redisqueue.annotation.QueueListener;
import io.github.redisqueue.autoconfigure.health.QueueHealthContributorAutoConfiguration;
import io.github.redisqueue.autoconfigure.metrics.QueueMetricsAutoConfiguration;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.metrics.QueueMetricsBinder;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The background tasks of an application (gauge refresher, worker heartbeat, reaper, schedules,
 * listener containers) follow the context's lifecycle, as a cached test context is stopped and
 * started again: once it is stopped, with its connection factory, none of them calls Redis or
 * logs a warning; once started again, they resume.
 */
// on one server only: every call this server sees comes from the context under test
@Tag("single-node")
@ExtendWith(OutputCaptureExtension.class)
class BackgroundTasksLifecycleIntegrationTests {

	@Test
	void aStoppedContextCallsRedisNoMoreAndResumesOnStart(CapturedOutput output) {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
						QueueListenerAutoConfiguration.class, QueueReaperAutoConfiguration.class,
						QueueScheduleAutoConfiguration.class, QueueMetricsAutoConfiguration.class,
						QueueHealthContributorAutoConfiguration.class))
				.withPropertyValues(TestRedis.springProperties(server.endpoint()))
				.withPropertyValues("queue.redis-check.enabled=false", "queue.metrics.refresh-interval=100ms",
						"queue.listener.poll-interval=100ms", "queue.workers.heartbeat-interval=200ms",
						"queue.schedules.tick.cron=* * * * * *", "queue.schedules.tick.queue=ticks",
						"queue.schedules.tick.payload=\"tick\"")
				.withUserConfiguration(Worker.class)
				.run((context) -> {
					QueueTemplate queues = context.getBean(QueueTemplate.class);
					QueueAdminOperations admin = context.getBean(QueueAdminOperations.class);
					SimpleMeterRegistry registry = new SimpleMeterRegistry();
					context.getBean(QueueMetricsBinder.class).bindTo(registry);
					queues.enqueue("work", "before");
					Worker worker = context.getBean(Worker.class);
					await().atMost(Duration.ofSeconds(30))
						.until(() -> worker.handled.contains("before")
								&& ready(registry, "ticks") >= 0 && !admin.workers().isEmpty());

					context.stop();
					assertThat(context.getBean(LettuceConnectionFactory.class).isRunning()).as("factory running").isFalse();
					int logged = output.length();
					TestRedis.resetCommandStats(server.endpoint());
					// ten refresh intervals, five heartbeats, two schedule ticks
					await().during(Duration.ofSeconds(2))
						.atMost(Duration.ofSeconds(30))
						.until(() -> TestRedis.commandStats(server.endpoint()).isEmpty());
					assertThat(output.toString().substring(logged)).as("logged while stopped")
						.doesNotContain("WARN")
						.doesNotContain("ERROR");
					assertThat(TestRedis.commandStats(server.endpoint())).as("Redis calls while stopped").isEmpty();

					// a queue the stopped gauges never saw
					LettuceConnectionFactory producer = TestRedis.connectionFactory(server.endpoint());
					try {
						new QueueTemplate(producer).enqueue("later", "x");
					}
					finally {
						producer.destroy();
					}
					assertThat(registry.find("queue.jobs").tag("queue", "later").gauge()).isNull();

					context.start();
					await().atMost(Duration.ofSeconds(30)).until(() -> ready(registry, "later") == 1);
					queues.enqueue("work", "after");
					await().atMost(Duration.ofSeconds(30))
						.until(() -> worker.handled.contains("after"));
					assertThat(TestRedis.commandStats(server.endpoint())).as("Redis calls after the start").isNotEmpty();
				});
		}
	}

	private static double ready(SimpleMeterRegistry registry, String queue) {
		Gauge gauge = registry.find("queue.jobs").tag("queue", queue).tag("state", "ready").gauge();
		return (gauge != null) ? gauge.value() : -1;
	}

	static class Worker {

		final List<String> handled = new CopyOnWriteArrayList<>();

		@QueueListener(queue = "work", id = "work")
		void handle(String payload) {
			this.handled.add(payload);
		}

	}

}
