package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.util.Map;

import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.RateLimit;
import io.github.redisqueue.listener.ContainerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Binding nothing gives the core defaults, so a Boot application and a plain Spring one behave
 * alike; each level of listener settings changes only what it sets; deprecated keys bind to
 * what their replacements bind to.
 */
@ExtendWith(OutputCaptureExtension.class)
class QueuePropertiesTests {

	@Test
	void bindingNothingGivesTheCoreEngineDefaults() {
		QueueProperties properties = bind(Map.of());
		QueueSettings bound = new QueueAutoConfiguration().queueSettings(properties);
		assertThat(bound).isEqualTo(QueueSettings.builder().workerId(bound.workerId()).build());
		assertThat(bound.workerId()).endsWith(":" + ProcessHandle.current().pid());
		assertThat(properties.getEnqueueTimeout()).isEqualTo(QueueTemplate.DEFAULT_ENQUEUE_TIMEOUT);
	}

	@Test
	void bindingNothingGivesTheCoreListenerDefaults() {
		QueueProperties properties = bind(Map.of());
		assertThat(QueueListenerContainerFactoryConfigurer.apply(ContainerOptions.defaults(), properties.getListener()))
			.isEqualTo(ContainerOptions.defaults());
	}

	@Test
	void queueSettingsChangeOnlyWhatTheySetOverQueueListener() {
		QueueProperties properties = bind(Map.of("queue.listener.concurrency", "4", "queue.listener.backoff.multiplier",
				"3", "queue.listener.backoff.max", "1m", "queue.queues.emails.backoff.initial", "250ms",
				"queue.queues.emails.lease", "45s"));
		ContainerOptions listener = QueueListenerContainerFactoryConfigurer.apply(ContainerOptions.defaults(),
				properties.getListener());
		ContainerOptions emails = QueueListenerContainerFactoryConfigurer.apply(listener,
				properties.getQueues().get("emails"));
		assertThat(emails).isEqualTo(listener.toBuilder()
			.backOffInitial(Duration.ofMillis(250))
			.lease(Duration.ofSeconds(45))
			.build());
		assertThat(emails.concurrency()).isEqualTo(4);
		assertThat(emails.backOffMultiplier()).isEqualTo(3.0);
		assertThat(emails.backOffMax()).isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void groupConcurrencyOfAQueueIsNotAListenerSetting() {
		QueueProperties properties = bind(Map.of("queue.queues.reports.group-concurrency", "5"));
		assertThat(properties.getQueues().get("reports").getGroupConcurrency()).isEqualTo(5);
		assertThat(QueueListenerContainerFactoryConfigurer.apply(ContainerOptions.defaults(),
				properties.getQueues().get("reports")))
			.isEqualTo(ContainerOptions.defaults());
		QueueSettings settings = new QueueAutoConfiguration().queueSettings(properties);
		assertThat(settings.groupConcurrency("reports")).isEqualTo(5);
		assertThat(settings.groupConcurrency("other")).isEqualTo(QueueSettings.DEFAULT_GROUP_CONCURRENCY);
	}

	@Test
	void rateLimitOfAQueueGoesToTheEngineSettingsNotTheListener() {
		QueueProperties properties = bind(Map.of("queue.queues.reports.rate-limit", "1000/1m"));
		assertThat(QueueListenerContainerFactoryConfigurer.apply(ContainerOptions.defaults(),
				properties.getQueues().get("reports")))
			.isEqualTo(ContainerOptions.defaults());
		QueueSettings settings = new QueueAutoConfiguration().queueSettings(properties);
		assertThat(settings.rateLimit("reports")).isEqualTo(new RateLimit(1000, Duration.ofMinutes(1)));
		assertThat(settings.rateLimit("other")).isNull();
	}

	@Test
	void deprecatedMaxAttemptsBindsAsDefaultMaxAttempts(CapturedOutput output) {
		QueueSettings current = new QueueAutoConfiguration()
			.queueSettings(bind(Map.of("queue.default-max-attempts", "7", "queue.worker-id", "w")));
		assertThat(output).doesNotContain("deprecated");
		QueueSettings deprecated = new QueueAutoConfiguration()
			.queueSettings(bind(Map.of("queue.max-attempts", "7", "queue.worker-id", "w")));
		assertThat(deprecated).isEqualTo(current);
		assertThat(deprecated.defaultMaxAttempts()).isEqualTo(7);
		assertThat(output).contains("'queue.max-attempts' is deprecated")
			.contains("use 'queue.default-max-attempts'");
	}

	@Test
	void deprecatedFlatBackOffKeysOfAQueueBindAsTheBackoffGroup(CapturedOutput output) {
		ContainerOptions current = emailsOptions(bind(Map.of("queue.queues.emails.backoff.initial", "250ms",
				"queue.queues.emails.backoff.multiplier", "3", "queue.queues.emails.backoff.max", "1m")));
		assertThat(output).doesNotContain("deprecated");
		ContainerOptions deprecated = emailsOptions(bind(Map.of("queue.queues.emails.backoff-initial", "250ms",
				"queue.queues.emails.backoff-multiplier", "3", "queue.queues.emails.backoff-max", "1m")));
		assertThat(deprecated).isEqualTo(current);
		assertThat(deprecated.backOff().start().nextBackOff()).isEqualTo(250);
		assertThat(deprecated.backOffMultiplier()).isEqualTo(3.0);
		assertThat(deprecated.backOffMax()).isEqualTo(Duration.ofMinutes(1));
		assertThat(output).contains("'queue.queues.<name>.backoff-initial' is deprecated")
			.contains("use 'queue.queues.<name>.backoff.max'");
	}

	private static ContainerOptions emailsOptions(QueueProperties properties) {
		return QueueListenerContainerFactoryConfigurer.apply(ContainerOptions.defaults(),
				properties.getQueues().get("emails"));
	}

	static QueueProperties bind(Map<String, String> values) {
		return new Binder(new MapConfigurationPropertySource(values)).bindOrCreate("queue", QueueProperties.class);
	}

}
