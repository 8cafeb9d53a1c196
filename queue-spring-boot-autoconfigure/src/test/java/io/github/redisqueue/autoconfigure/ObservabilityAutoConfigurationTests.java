package io.github.redisqueue.autoconfigure;

import io.github.redisqueue.actuate.endpoint.QueuesEndpoint;
import io.github.redisqueue.autoconfigure.endpoint.QueuesEndpointAutoConfiguration;
import io.github.redisqueue.autoconfigure.health.QueueHealthContributorAutoConfiguration;
import io.github.redisqueue.autoconfigure.metrics.QueueMetricsAutoConfiguration;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.metrics.QueueMetricsBinder;
import io.github.redisqueue.health.QueueHealthIndicator;
import io.github.redisqueue.listener.WorkerHeartbeat;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conditions of the health indicator, the {@code queues} endpoint and the worker heartbeat; the
 * template observed with the application's observation registry.
 */
class ObservabilityAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
				QueueListenerAutoConfiguration.class, QueueHealthContributorAutoConfiguration.class,
				QueuesEndpointAutoConfiguration.class, QueueMetricsAutoConfiguration.class));

	@Test
	void metricsBinderIsThereWithMicrometerAndAbsentWithout() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(QueueMetricsBinder.class));
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer.core"))
			.run((context) -> assertThat(context).doesNotHaveBean(QueueMetricsBinder.class));
	}

	@Test
	void healthIndicatorIsThereByDefaultAndSwitchedOffByProperty() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(QueueHealthIndicator.class)
			.hasBean("queueHealthIndicator"));
		this.contextRunner.withPropertyValues("management.health.queue.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(QueueHealthIndicator.class));
	}

	@Test
	void healthIndicatorNeedsTheHealthModule() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
			.run((context) -> assertThat(context).doesNotHaveBean(QueueHealthIndicator.class));
	}

	@Test
	void endpointOnlyWhenExposed() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(QueuesEndpoint.class));
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=queues")
			.run((context) -> assertThat(context).hasSingleBean(QueuesEndpoint.class));
	}

	@Test
	void workerHeartbeatIsThereByDefaultAndSwitchedOffByProperty() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(WorkerHeartbeat.class));
		this.contextRunner.withPropertyValues("queue.workers.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(WorkerHeartbeat.class));
	}

	@Test
	void templateIsObservedWithTheApplicationsObservationRegistry() {
		ObservationRegistry registry = ObservationRegistry.create();
		this.contextRunner.withBean(ObservationRegistry.class, () -> registry)
			.run((context) -> assertThat(context.getBean(QueueTemplate.class).getObservationRegistry())
				.isSameAs(registry));
		this.contextRunner.run((context) -> assertThat(context.getBean(QueueTemplate.class).getObservationRegistry())
			.isSameAs(ObservationRegistry.NOOP));
	}

}
