package io.github.redisqueue.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.boot.origin.TextResourceOrigin;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;

/**
 * Reports, once at startup, every {@code queue.*} key of the {@link Environment} that binds to
 * nothing, such as {@code queue.listner.concurrency} or
 * {@code queue.queues.orders.concurency}: a warning per key, naming the property source it came
 * from and the nearest valid key; with {@code queue.fail-on-unknown-properties=true} the start
 * fails instead with an {@link UnknownQueuePropertiesException} listing them all. The valid keys
 * are those of {@link KnownQueueProperties}; map keys chosen by the user (queue and schedule
 * names, with dots in bracket syntax) are never reported, only the settings below them, and
 * deprecated keys, which still bind, are not reported either.
 */
final class UnknownQueuePropertiesCheck implements InitializingBean {

	/** Whether an unknown key fails the start instead of being logged. */
	static final String FAIL_PROPERTY = "queue.fail-on-unknown-properties";

	private static final Logger logger = LoggerFactory.getLogger(UnknownQueuePropertiesCheck.class);

	private final Environment environment;

	private final @Nullable ClassLoader classLoader;

	UnknownQueuePropertiesCheck(Environment environment, @Nullable ClassLoader classLoader) {
		this.environment = environment;
		this.classLoader = classLoader;
	}

	@Override
	public void afterPropertiesSet() {
		List<String> unknown = unknownProperties();
		if (unknown.isEmpty()) {
			return;
		}
		if (failsOnUnknown(Binder.get(this.environment))) {
			throw new UnknownQueuePropertiesException(unknown);
		}
		for (String property : unknown) {
			logger.warn("{} (set {}=true to fail the start instead)", property, FAIL_PROPERTY);
		}
	}

	/** Whether the start fails on an unknown key: queue.fail-on-unknown-properties, false when unset. */
	static boolean failsOnUnknown(Binder binder) {
		return binder.bind(FAIL_PROPERTY, Boolean.class).orElse(false);
	}

	/** One line per unknown key: the key, where it came from, and the nearest valid key. */
	List<String> unknownProperties() {
		ConfigurationPropertyName root = ConfigurationPropertyName.of(KnownQueueProperties.PREFIX);
		Map<ConfigurationPropertyName, Set<String>> origins = new LinkedHashMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable.stream()
					.filter(root::isAncestorOf)
					.forEach((name) -> origins.computeIfAbsent(name, (key) -> new LinkedHashSet<>())
						.add(origin(source, name)));
			}
		}
		if (origins.isEmpty()) {
			return List.of();
		}
		KnownQueueProperties known = KnownQueueProperties.load(this.classLoader);
		origins.keySet().removeIf(known::isKnown);
		List<String> lines = new ArrayList<>();
		for (Map.Entry<ConfigurationPropertyName, Set<String>> entry : origins.entrySet()) {
			String nearest = known.nearest(entry.getKey());
			lines.add("Property '" + KnownQueueProperties.display(entry.getKey()) + "' from " + String.join(", ", entry.getValue())
					+ " binds to no queue setting" + ((nearest != null) ? "; did you mean '" + nearest + "'?" : ""));
		}
		return lines;
	}

	private static String origin(ConfigurationPropertySource source, ConfigurationPropertyName name) {
		Object underlying = source.getUnderlyingSource();
		String text = "[" + ((underlying instanceof PropertySource<?> propertySource) ? propertySource.getName()
				: String.valueOf(underlying)) + "]";
		ConfigurationProperty property = source.getConfigurationProperty(name);
		Origin origin = (property != null) ? property.getOrigin() : null;
		if (origin instanceof PropertySourceOrigin propertySourceOrigin) {
			origin = propertySourceOrigin.getOrigin();
		}
		if (origin instanceof TextResourceOrigin resourceOrigin) {
			text += " (" + resourceOrigin + ")";
		}
		return text;
	}

}
