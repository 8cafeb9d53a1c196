package io.github.redisqueue.core;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image of an application using the engine needs beyond what Spring finds on its
 * own: the Lua scripts and prelude modules that {@link QueueScripts} reads from the class path.
 * Registered through {@code META-INF/spring/aot.factories}, so any Spring application built
 * ahead of time gets it, with or without Spring Boot.
 *
 * @since 0.1.0
 */
public final class QueueRuntimeHints implements RuntimeHintsRegistrar {

	/** The resource pattern of the scripts. */
	public static final String SCRIPTS = QueueScripts.LOCATION + "*.lua";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(SCRIPTS);
	}

}
