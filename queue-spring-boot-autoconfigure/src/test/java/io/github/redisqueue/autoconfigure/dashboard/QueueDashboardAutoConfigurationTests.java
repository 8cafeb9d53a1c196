package io.github.redisqueue.autoconfigure.dashboard;

import io.github.redisqueue.autoconfigure.QueueAutoConfiguration;
import io.github.redisqueue.dashboard.QueueDashboardController;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the dashboard is served, and how its settings are checked at start-up.
 */
class QueueDashboardAutoConfigurationTests {

	private final WebApplicationContextRunner web = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
				QueueDashboardAutoConfiguration.class))
		.withPropertyValues(TestRedis.springProperties(TestRedis.shared()));

	@Test
	void offUnlessEnabled() {
		this.web.run((context) -> assertThat(context).doesNotHaveBean(QueueDashboardController.class)
			.doesNotHaveBean(QueueDashboardProperties.class));
	}

	@Test
	void enabledInAServletApplicationWithItsDefaults() {
		this.web.withPropertyValues("queue.dashboard.enabled=true").run((context) -> {
			QueueDashboardController dashboard = context.getBean(QueueDashboardController.class);
			assertThat(dashboard.getSettings().path()).isEqualTo("/queues");
			assertThat(dashboard.getSettings().readOnly()).isFalse();
			assertThat(dashboard.getSettings().springSecurity()).isFalse();
			assertThat(dashboard.getSettings().refreshInterval()).hasSeconds(3);
		});
	}

	@Test
	void notServedOutsideAWebApplication() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
					QueueDashboardAutoConfiguration.class))
			.withPropertyValues(TestRedis.springProperties(TestRedis.shared()))
			.withPropertyValues("queue.dashboard.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(QueueDashboardController.class));
	}

	@Test
	void invalidPathFailsTheStartWithTheRule() {
		this.web.withPropertyValues("queue.dashboard.enabled=true", "queue.dashboard.path=queues/")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("queue.dashboard.path 'queues/' is invalid")
				.hasMessageContaining("must start with '/'"));
	}

	@Test
	void roleWithoutSpringSecurityFailsTheStart() {
		this.web.withPropertyValues("queue.dashboard.enabled=true", "queue.dashboard.role=OPS")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("queue.dashboard.role 'OPS' is set, but Spring Security is not active"));
	}

	@Test
	void refreshIntervalBelowHalfASecondFailsTheStart() {
		this.web.withPropertyValues("queue.dashboard.enabled=true", "queue.dashboard.refresh-interval=100ms")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("queue.dashboard.refresh-interval PT0.1S is too short"));
	}

}
