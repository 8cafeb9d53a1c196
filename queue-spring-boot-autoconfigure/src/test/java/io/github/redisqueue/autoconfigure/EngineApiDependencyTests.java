package io.github.redisqueue.autoconfigure;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The auto-configuration, the Actuator endpoints, the health indicator and the dashboard work
 * through the engine's API: none of them uses an internal package of queue-core.
 */
class EngineApiDependencyTests {

	private static final String CORE = "io.github.redisqueue.core";

	@Test
	void bootModuleUsesNoInternalPackageOfTheEngine() {
		JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
			.importPackages("io.github.redisqueue.autoconfigure", "io.github.redisqueue.actuate",
					"io.github.redisqueue.dashboard", "io.github.redisqueue.health");
		ArchRule rule = noClasses().should()
			.dependOnClassesThat()
			.resideInAnyPackage(CORE + ".script..", CORE + ".engine..", CORE + ".enqueue..", CORE + ".reserve..",
					CORE + ".batch..", CORE + ".partition..", CORE + ".wakeup..")
			.because("the internal packages of queue-core are not API and may change without notice");
		rule.check(classes);
	}

}
