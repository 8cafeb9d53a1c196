package io.github.redisqueue.actuate.endpoint;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Binding hints for the descriptors that {@link QueuesEndpoint#part} returns as {@code Object}
 * (a job or a batch), which Spring Boot cannot see from the operation's signature; the other
 * operations declare their types and get their hints from Spring Boot. Imported by the
 * endpoint's auto-configuration.
 *
 * @since 0.1.0
 */
public final class QueuesEndpointRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), JobDescriptor.class,
				BatchDescriptor.class);
	}

}
