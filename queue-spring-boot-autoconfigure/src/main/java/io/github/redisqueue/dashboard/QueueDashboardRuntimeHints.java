package io.github.redisqueue.dashboard;

import java.util.Arrays;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs for the dashboard beyond what Spring MVC registers for its
 * controller: the page, script and style sheet read from the class path, and binding hints for
 * every JSON shape of its API (some leave the controller as {@code ResponseEntity<?>}, whose
 * body type Spring cannot see). Imported by the dashboard's auto-configuration.
 *
 * @since 0.1.0
 */
public final class QueueDashboardRuntimeHints implements RuntimeHintsRegistrar {

	/** The resource pattern of the dashboard's assets. */
	public static final String ASSETS = QueueDashboardController.ASSETS + "*";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(ASSETS);
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
				Stream.concat(Arrays.stream(DashboardViews.class.getDeclaredClasses()),
						Arrays.stream(DashboardPageViews.class.getDeclaredClasses()))
					.filter(Class::isRecord)
					.toArray(Class<?>[]::new));
	}

}
