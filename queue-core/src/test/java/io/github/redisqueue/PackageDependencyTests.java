package io.github.redisqueue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import io.github.redisqueue.listener.Acknowledgement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

/**
 * The package layering of queue-core, checked on the compiled classes (so a fully qualified name
 * in code counts as much as an import). From the bottom up: the root package (the exception
 * root), {@code support} (serialization, observation documentation, argument resolvers),
 * {@code core} (the engine), {@code listener} (containers), {@code config} (endpoints and their
 * registry), {@code schedule} (recurring jobs, on the engine alone) and {@code annotation}. A
 * package may use the ones below it, never one above; {@code listener}, {@code config} and
 * {@code schedule} do not use each other.
 */
class PackageDependencyTests {

	private static final String ROOT = "io.github.redisqueue";

	private static JavaClasses classes;

	@BeforeAll
	static void importMainClasses() {
		classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
			.importPackages(ROOT);
	}

	@Test
	void supportDependsOnNothingElseInTheLibrary() {
		ArchRule rule = noClasses().that()
			.resideInAPackage(ROOT + ".support..")
			.should()
			.dependOnClassesThat(resideInAnyPackage(ROOT + ".core..", ROOT + ".listener..", ROOT + ".config..",
					ROOT + ".schedule..", ROOT + ".annotation..")
				.and(not(equivalentTo(Acknowledgement.class))))
			.because("support is the lowest layer; only argument resolvers hand out the Acknowledgement type");
		rule.check(classes);
	}

	@Test
	void packagesUseOnlyTheLayersBelowThem() {
		ArchRule rule = layeredArchitecture().consideringOnlyDependenciesInAnyPackage(ROOT + "..")
			.layer("root")
			.definedBy(ROOT)
			.layer("support")
			.definedBy(ROOT + ".support..")
			.layer("core")
			.definedBy(ROOT + ".core..")
			.layer("listener")
			.definedBy(ROOT + ".listener..")
			.layer("config")
			.definedBy(ROOT + ".config..")
			.layer("schedule")
			.definedBy(ROOT + ".schedule..")
			.layer("annotation")
			.definedBy(ROOT + ".annotation..")
			.whereLayer("annotation")
			.mayNotBeAccessedByAnyLayer()
			.whereLayer("schedule")
			.mayOnlyBeAccessedByLayers("annotation")
			.whereLayer("config")
			.mayOnlyBeAccessedByLayers("annotation")
			.whereLayer("listener")
			.mayOnlyBeAccessedByLayers("config", "annotation")
			.whereLayer("core")
			.mayOnlyBeAccessedByLayers("listener", "config", "schedule", "annotation")
			.whereLayer("support")
			.mayOnlyBeAccessedByLayers("core", "listener", "config", "schedule", "annotation")
			.ignoreDependency(resideInAPackage(ROOT + ".support.resolver"), equivalentTo(Acknowledgement.class));
		rule.check(classes);
	}

}
