package io.github.redisqueue.testing;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * queue-test is written against the library's public API only, as an application's tests are:
 * none of its classes uses the engine's internal packages or the listener container's parts.
 */
class QueueTestArchitectureTests {

	private static final String ROOT = "io.github.redisqueue";

	@Test
	void usesOnlyThePublicApi() {
		JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
			.importPackages(ROOT + ".testing");
		noClasses().should()
			.dependOnClassesThat()
			.resideInAnyPackage(ROOT + ".core.script..", ROOT + ".core.engine..", ROOT + ".core.enqueue..",
					ROOT + ".core.reserve..", ROOT + ".core.batch..", ROOT + ".core.partition..", ROOT + ".core.wakeup..",
					ROOT + ".listener.ack..", ROOT + ".listener.fetch..", ROOT + ".listener.lease..",
					ROOT + ".listener.retry..", ROOT + ".listener.adapter..")
			.because("queue-test uses the API an application uses")
			.check(classes);
	}

}
