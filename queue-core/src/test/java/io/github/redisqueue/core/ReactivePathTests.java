package io.github.redisqueue.core;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * No code of the library waits for a {@link Mono} or {@link Flux}: the reactive producer composes
 * its Redis calls and never blocks a subscriber's thread on one.
 */
class ReactivePathTests {

	@Test
	void noMainClassBlocksOnAPublisher() {
		JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
			.importPackages("io.github.redisqueue");
		DescribedPredicate<JavaMethodCall> waits = DescribedPredicate.describe("a call that waits for a Mono or Flux",
				(call) -> (call.getTargetOwner().isAssignableTo(Mono.class) || call.getTargetOwner().isAssignableTo(Flux.class))
						&& call.getName().matches("block.*|toIterable|toStream|toFuture"));
		noClasses().should()
			.callMethodWhere(waits)
			.because("the reactive path composes its calls instead of waiting for them")
			.check(classes);
	}

}
