package io.github.redisqueue.testing;

import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

/**
 * The dead-letter check of {@link QueueTestExtension}, seen from outside: the tests of
 * {@link DeadLetterScenarios} run through the JUnit launcher and their outcomes are read.
 */
class DeadLetterCheckIntegrationTests {

	@Test
	void aTestThatLeavesADeadLetterFailsWithTheJobsErrorAndPayload() {
		TestExecutionSummary summary = run("leavesADeadLetter");

		assertThat(summary.getTestsFailedCount()).isEqualTo(1);
		assertThat(summary.getFailures().get(0).getException()).isInstanceOf(AssertionError.class)
			.hasMessageStartingWith("Jobs were dead-lettered (expect them with @ExpectDeadLetters or expectDeadLetters(queue)):")
			.hasMessageContaining("queue 'orders': 1 dead")
			.hasMessageContaining("after 1 attempt(s)")
			.hasMessageContaining("out of stock: refuse-it")
			.hasMessageContaining("\"item\":\"refuse-it\"");
	}

	@Test
	void expectedDeadLettersPassByAnnotationOrByCall() {
		TestExecutionSummary summary = run("expectsThemByAnnotation", "expectsAnyByAnnotation", "expectsThemByCall");

		assertThat(summary.getFailures()).isEmpty();
		assertThat(summary.getTestsSucceededCount()).isEqualTo(3);
	}

	@Test
	void deadLettersOfAnotherQueueStillFail() {
		TestExecutionSummary summary = run("expectsThemInAnotherQueue");

		assertThat(summary.getTestsFailedCount()).isEqualTo(1);
		assertThat(summary.getFailures().get(0).getException()).hasMessageContaining("queue 'orders': 1 dead");
	}

	@Test
	void aTestThatFailsOnItsOwnKeepsItsOwnFailure() {
		TestExecutionSummary summary = run("failsOnItsOwn");

		assertThat(summary.getTestsFailedCount()).isEqualTo(1);
		assertThat(summary.getFailures().get(0).getException()).hasMessage("its own failure");
	}

	private static TestExecutionSummary run(String... methods) {
		SummaryGeneratingListener listener = new SummaryGeneratingListener();
		LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
		for (String method : methods) {
			request.selectors(selectMethod(DeadLetterScenarios.class, method));
		}
		LauncherFactory.create().execute(request.build(), listener);
		return listener.getSummary();
	}

}
