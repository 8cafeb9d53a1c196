package io.github.redisqueue.dashboard;

import io.github.redisqueue.autoconfigure.dashboard.QueueDashboardAutoConfiguration;
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
 * The dashboard's runtime hints: its assets are resources of a native image, every JSON shape
 * of its API is bound, and its auto-configuration imports them.
 */
class QueueDashboardRuntimeHintsTests {

	@Test
	void assetsAreResourcesAndEveryViewIsBound() {
		RuntimeHints hints = new RuntimeHints();
		new QueueDashboardRuntimeHints().registerHints(hints, getClass().getClassLoader());
		assertHints(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("io/github/redisqueue/scripts/enqueue.lua"))
			.rejects(hints);
	}

	@Test
	void theAutoConfigurationImportsTheHints() {
		DefaultGenerationContext generation = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(QueueDashboardRuntimeHintsTests.class)), new InMemoryGeneratedFiles());
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			context.registerBeanDefinition("dashboard", new RootBeanDefinition(QueueDashboardAutoConfiguration.class));
			new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
		}
		assertHints(generation.getRuntimeHints());
	}

	private static void assertHints(RuntimeHints hints) {
		for (String asset : new String[] { "index.html", "app.js", "app.css", "pages.js" }) {
			assertThat(RuntimeHintsPredicates.resource().forResource(QueueDashboardController.ASSETS + asset))
				.as(asset)
				.accepts(hints);
		}
		// a job's detail and a refusal leave the controller as ResponseEntity<?>
		for (Class<?> view : new Class<?>[] { DashboardViews.JobDetail.class, DashboardViews.Problem.class,
				DashboardViews.Overview.class, DashboardViews.Settings.class, DashboardViews.Csrf.class,
				DashboardPageViews.FindResult.class, DashboardPageViews.BulkResult.class }) {
			assertThat(RuntimeHintsPredicates.reflection().onType(view)).as(view.getSimpleName()).accepts(hints);
		}
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(DashboardViews.JobDetail.class, "payload"))
			.accepts(hints);
	}

}
