package io.github.redisqueue.core;

import java.io.IOException;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints of the engine: every Lua script on the class path is a resource of the
 * native image, and the registrar is found through {@code META-INF/spring/aot.factories}.
 */
class QueueRuntimeHintsTests {

	@Test
	void everyScriptAndPreludeModuleIsAResourceOfTheImage() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		new QueueRuntimeHints().registerHints(hints, getClass().getClassLoader());
		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:" + QueueScripts.LOCATION + "*.lua");
		assertThat(scripts).extracting(Resource::getFilename)
			.contains("enqueue.lua", "clock.lua", "common-keys.lua", "keycheck.lua", "registry.lua");
		for (Resource script : scripts) {
			assertThat(RuntimeHintsPredicates.resource().forResource(QueueScripts.LOCATION + script.getFilename()))
				.as(script.getFilename())
				.accepts(hints);
		}
		assertThat(RuntimeHintsPredicates.resource().forResource("io/github/redisqueue/other/enqueue.lua"))
			.rejects(hints);
	}

	@Test
	void theRegistrarIsListedInAotFactories() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class).asList())
			.hasAtLeastOneElementOfType(QueueRuntimeHints.class);
	}

}
