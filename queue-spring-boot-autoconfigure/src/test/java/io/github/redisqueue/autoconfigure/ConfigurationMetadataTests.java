package io.github.redisqueue.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import io.github.redisqueue.autoconfigure.dashboard.QueueDashboardProperties;
import io.github.redisqueue.autoconfigure.health.QueueHealthIndicatorProperties;
import io.github.redisqueue.autoconfigure.metrics.QueueMetricsProperties;
import io.github.redisqueue.listener.ContainerOptions;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.convert.ConversionService;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata (generated, with the hand-written additional metadata merged in)
 * gives IDEs a description for every property, documents every default as what binding an empty
 * environment gives, and lists each deprecated key with its replacement.
 */
class ConfigurationMetadataTests {

	private static final ConversionService conversion = ApplicationConversionService.getSharedInstance();

	private final Map<String, JsonNode> properties = readMetadata();

	@Test
	void everyPropertyHasADescription() {
		assertThat(this.properties).hasSizeGreaterThanOrEqualTo(21);
		this.properties.forEach((name, property) -> assertThat(property.has("description")).as(name).isTrue());
	}

	@Test
	void everyDocumentedDefaultIsWhatBindingNothingGives() {
		QueueProperties queue = bind("queue", QueueProperties.class);
		QueueHealthIndicatorProperties health = bind("queue.health", QueueHealthIndicatorProperties.class);
		QueueMetricsProperties metrics = bind("queue.metrics", QueueMetricsProperties.class);
		QueueDashboardProperties dashboard = bind("queue.dashboard", QueueDashboardProperties.class);
		QueueEnqueueProperties enqueue = bind("queue.enqueue", QueueEnqueueProperties.class);
		ContainerOptions listener = QueueListenerContainerFactoryConfigurer.apply(ContainerOptions.defaults(),
				queue.getListener());
		// keys whose unset value means "the core default"
		Map<String, Function<ContainerOptions, Object>> listenerDefaults = Map.of("concurrency",
				ContainerOptions::concurrency, "lease", ContainerOptions::lease, "poll-interval",
				ContainerOptions::pollInterval, "shutdown-timeout", ContainerOptions::shutdownTimeout, "backoff.initial",
				ContainerOptions::backOffInitial, "backoff.multiplier", ContainerOptions::backOffMultiplier,
				"backoff.max", ContainerOptions::backOffMax, "ack-mode", ContainerOptions::acknowledgementMode,
				"auto-startup", ContainerOptions::autoStartup);
		Map<String, Object> checked = new LinkedHashMap<>();
		this.properties.forEach((name, property) -> {
			if (!property.has("defaultValue") || !name.startsWith("queue.")) {
				return;
			}
			Object bound = name.equals(UnknownQueuePropertiesCheck.FAIL_PROPERTY)
					? UnknownQueuePropertiesCheck.failsOnUnknown(new Binder(new MapConfigurationPropertySource()))
					: name.startsWith("queue.health.") ? valueAt(health, name, "queue.health.")
					: name.startsWith("queue.metrics.") ? valueAt(metrics, name, "queue.metrics.")
							: name.startsWith("queue.dashboard.") ? valueAt(dashboard, name, "queue.dashboard.")
									: name.startsWith("queue.enqueue.") ? valueAt(enqueue, name, "queue.enqueue.")
											: valueAt(queue, name, "queue.");
			if (bound == null && name.startsWith("queue.listener.")) {
				Function<ContainerOptions, Object> core = listenerDefaults.get(name.substring("queue.listener.".length()));
				assertThat(core).as("core default behind %s", name).isNotNull();
				bound = core.apply(listener);
			}
			assertThat(bound).as("value of %s when nothing is bound", name).isNotNull();
			assertThat(conversion.convert(property.get("defaultValue").asString(), bound.getClass())).as(name)
				.isEqualTo(bound);
			checked.put(name, bound);
		});
		assertThat(checked).containsKeys("queue.key-prefix", "queue.default-max-attempts", "queue.listener.lease",
				"queue.listener.backoff.multiplier", "queue.reaper.interval", "queue.reaper.batch",
				"queue.health.timeout", "queue.metrics.refresh-interval", "queue.result-retention",
				"queue.max-result-size", "queue.batch-retention", "queue.default-group-concurrency",
				"queue.dashboard.enabled", "queue.dashboard.path", "queue.dashboard.read-only",
				"queue.dashboard.refresh-interval", UnknownQueuePropertiesCheck.FAIL_PROPERTY, "queue.enqueue.transaction-aware");
		assertThat(checked).hasSize((int) this.properties.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().startsWith("queue.") && entry.getValue().has("defaultValue"))
			.count());
	}

	@Test
	void healthIndicatorIsEnabledByDefaultAsDocumented() {
		boolean documented = this.properties.get("management.health.queue.enabled").get("defaultValue").asBoolean();
		new ApplicationContextRunner().withUserConfiguration(HealthToggle.class)
			.run((context) -> assertThat(context.containsBean("queueHealthToggle")).isEqualTo(documented));
	}

	@Test
	void deprecatedKeysNameTheirReplacement() {
		assertDeprecated("queue.max-attempts", "queue.default-max-attempts");
		assertDeprecated("queue.queues.*.backoff-initial", "queue.queues.*.backoff.initial");
		assertDeprecated("queue.queues.*.backoff-multiplier", "queue.queues.*.backoff.multiplier");
		assertDeprecated("queue.queues.*.backoff-max", "queue.queues.*.backoff.max");
	}

	private void assertDeprecated(String name, String replacement) {
		JsonNode deprecation = this.properties.get(name).get("deprecation");
		assertThat(deprecation).as(name).isNotNull();
		assertThat(deprecation.get("replacement").asString()).isEqualTo(replacement);
		assertThat(deprecation.has("level") ? deprecation.get("level").asString() : "warning").isEqualTo("warning");
		assertThat(this.properties.get(replacement.replace("queue.queues.*.", "queue.listener."))).as(replacement)
			.isNotNull();
	}

	/** The value of a property read from the bound object of its prefix, such as "listener.lease". */
	private static @Nullable Object valueAt(Object root, String name, String prefix) {
		StringBuilder path = new StringBuilder();
		for (String segment : name.substring(prefix.length()).split("\\.")) {
			path.append((path.length() > 0) ? "." : "").append(camelCase(segment));
		}
		return new BeanWrapperImpl(root).getPropertyValue(path.toString());
	}

	private static String camelCase(String kebab) {
		StringBuilder camel = new StringBuilder();
		boolean upper = false;
		for (char c : kebab.toCharArray()) {
			if (c == '-') {
				upper = true;
			}
			else {
				camel.append(upper ? Character.toUpperCase(c) : c);
				upper = false;
			}
		}
		return camel.toString();
	}

	private static <T> T bind(String prefix, Class<T> type) {
		return new Binder(new MapConfigurationPropertySource()).bindOrCreate(prefix, type);
	}

	private static Map<String, JsonNode> readMetadata() {
		JsonNode metadata;
		try (InputStream in = ConfigurationMetadataTests.class
			.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("generated metadata on the class path").isNotNull();
			metadata = JsonMapper.builder().build().readTree(in);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		Map<String, JsonNode> properties = new HashMap<>();
		metadata.get("properties").forEach((property) -> properties.put(property.get("name").asString(), property));
		return properties;
	}

	@Configuration(proxyBeanMethods = false)
	static class HealthToggle {

		@Bean
		@ConditionalOnEnabledHealthIndicator("queue")
		String queueHealthToggle() {
			return "on";
		}

	}

}
