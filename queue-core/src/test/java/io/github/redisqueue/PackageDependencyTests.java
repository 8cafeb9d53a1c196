package io.github.redisqueue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.Acknowledgement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The package layering of queue-core, checked on the compiled classes (so a fully qualified name
 * in code counts as much as an import). From the bottom up: the root package (the exception
 * root), {@code support} (serialization, observation documentation, argument resolvers),
 * {@code core} (the engine), {@code listener} (containers), {@code config} (endpoints and their
 * registry), {@code schedule} (recurring jobs, on the engine alone) and {@code annotation}. A
 * package may use the ones below it, never one above; {@code listener}, {@code config} and
 * {@code schedule} do not use each other.
 *
 * <p>Inside {@code core}, the package itself is the API (value types, settings, and the façades
 * {@link QueueTemplate} and {@link QueueAdmin}); the internal packages under it
 * ({@link #INTERNAL}) hold the parts the façades delegate to. No class outside {@code core} uses
 * them, they never use the façades back, and they form no cycle among themselves.
 */
class PackageDependencyTests {

	private static final String ROOT = "io.github.redisqueue";

	/** The internal packages of the engine: not API, used by the engine alone. */
	static final String[] INTERNAL = { ROOT + ".core.script..", ROOT + ".core.engine..", ROOT + ".core.enqueue..",
			ROOT + ".core.reserve..", ROOT + ".core.batch..", ROOT + ".core.partition..", ROOT + ".core.wakeup..",
			ROOT + ".core.reactive.." };

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

	@Test
	void onlyTheEngineUsesItsInternalPackages() {
		ArchRule rule = noClasses().that()
			.resideOutsideOfPackage(ROOT + ".core..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(INTERNAL)
			.because("listeners, endpoints, schedules and annotations work through the engine's API");
		rule.check(classes);
	}

	@Test
	void internalPackagesDoNotReachBackToTheFacades() {
		ArchRule rule = noClasses().that()
			.resideInAnyPackage(INTERNAL)
			.should()
			.dependOnClassesThat(equivalentTo(QueueTemplate.class).or(equivalentTo(QueueAdmin.class)))
			.because("the template and the admin delegate downwards; their parts get what they need "
					+ "(the context, the executor, keys, settings) instead");
		rule.check(classes);
	}

	@Test
	void enginePackagesAreFreeOfCycles() {
		slices().matching(ROOT + ".core.(*)..").should().beFreeOfCycles().check(classes);
	}

}
