package io.github.redisqueue.actuate.endpoint;

import io.github.redisqueue.autoconfigure.endpoint.QueuesEndpointAutoConfiguration;
import io.github.redisqueue.core.BatchState;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code queues} endpoint's runtime hints: the job and batch descriptors its
 * {@code Object}-returning operation gives are bound, through its auto-configuration.
 */
class QueuesEndpointRuntimeHintsTests {

	@Test
	void theDescriptorsReturnedAsObjectAreBound() {
		RuntimeHints hints = new RuntimeHints();
		new QueuesEndpointRuntimeHints().registerHints(hints, getClass().getClassLoader());
		assertHints(hints);
	}

	@Test
	void theAutoConfigurationImportsTheHints() {
		DefaultGenerationContext generation = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(QueuesEndpointRuntimeHintsTests.class)), new InMemoryGeneratedFiles());
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			context.registerBeanDefinition("endpoint", new RootBeanDefinition(QueuesEndpointAutoConfiguration.class));
			new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
		}
		assertHints(generation.getRuntimeHints());
	}

	private static void assertHints(RuntimeHints hints) {
		assertThat(RuntimeHintsPredicates.reflection().onType(JobDescriptor.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(JobDescriptor.class, "state")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(BatchDescriptor.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(BatchState.class)).accepts(hints);
	}

}
