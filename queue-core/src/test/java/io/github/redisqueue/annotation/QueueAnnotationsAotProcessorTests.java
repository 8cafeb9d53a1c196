package io.github.redisqueue.annotation;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.listener.Acknowledgement;
import io.github.redisqueue.support.BatchCompletion;
import io.github.redisqueue.support.JobMetadata;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.javapoet.ClassName;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reflection and binding hints registered ahead of time for the beans with
 * {@code @QueueListener} and {@code @RecurringJob} methods.
 */
class QueueAnnotationsAotProcessorTests {

	@Test
	void aListenerBeanOfAConfigurationGetsInvocationAndBindingHintsInTheApplicationsAotProcessing() {
		RuntimeHints hints = processAheadOfTime(ListenerConfiguration.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderListeners.class, "onOrder"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderListeners.class, "report"))
			.accepts(hints);
		// the payload, what its properties hold, and what the recurring job returns
		assertThat(RuntimeHintsPredicates.reflection().onType(Order.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class, "customer")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Customer.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Report.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Unrelated.class)).rejects(hints);
	}

	@Test
	void theProcessorIsListedInAotFactories() {
		assertThat(AotServices.factories().load(BeanRegistrationAotProcessor.class).asList())
			.hasAtLeastOneElementOfType(QueueAnnotationsAotProcessor.class);
	}

	@Test
	void bindsWhatTheSerializerReadsAndWritesAndNothingTheLibraryFills() {
		RuntimeHints hints = contribute(OrderListeners.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderListeners.class, "onOrder"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderListeners.class, "onLines"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderListeners.class, "report"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderListeners.class, "helper"))
			.rejects(hints);
		// payloads (with the types they hold), the payload of a Message<List<T>>, results
		for (Class<?> bound : List.of(Order.class, Customer.class, Line.class, Receipt.class, Report.class)) {
			assertThat(RuntimeHintsPredicates.reflection().onType(bound)).as(bound.getSimpleName()).accepts(hints);
		}
		// what the library fills from the job, not from the payload
		for (Class<?> filled : List.of(JobMetadata.class, Acknowledgement.class, BatchCompletion.class,
				Message.class, Instant.class, Unrelated.class)) {
			assertThat(RuntimeHintsPredicates.reflection().onType(filled)).as(filled.getSimpleName()).rejects(hints);
		}
	}

	@Test
	void contributesNothingForABeanWithoutAnnotatedMethods() {
		assertThat(processor(Unrelated.class)).isNull();
	}

	private static RuntimeHints processAheadOfTime(Class<?> configuration) {
		DefaultGenerationContext generation = generationContext();
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(configuration);
			new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
		}
		return generation.getRuntimeHints();
	}

	private static RuntimeHints contribute(Class<?> beanClass) {
		BeanRegistrationAotContribution contribution = processor(beanClass);
		assertThat(contribution).isNotNull();
		DefaultGenerationContext generation = generationContext();
		contribution.applyTo(generation, null);
		return generation.getRuntimeHints();
	}

	private static BeanRegistrationAotContribution processor(Class<?> beanClass) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
		return new QueueAnnotationsAotProcessor().processAheadOfTime(RegisteredBean.of(beanFactory, "bean"));
	}

	private static DefaultGenerationContext generationContext() {
		return new DefaultGenerationContext(new ClassNameGenerator(ClassName.get(QueueAnnotationsAotProcessorTests.class)),
				new InMemoryGeneratedFiles());
	}

	@Configuration(proxyBeanMethods = false)
	static class ListenerConfiguration {

		@Bean
		OrderListeners orderListeners() {
			return new OrderListeners();
		}

	}

	static class OrderListeners {

		@QueueListener(queue = "orders")
		void onOrder(Order order, JobMetadata metadata, Acknowledgement acknowledgement, BatchCompletion batch,
				@Header("tenant") String tenant) {
		}

		@QueueListener(queue = "lines")
		Receipt onLines(Message<List<Line>> lines) {
			return new Receipt(lines.getPayload().size());
		}

		@RecurringJob(queue = "reports", cron = "0 0 * * * *")
		Report report(Instant tick) {
			return new Report(tick.toString());
		}

		Unrelated helper(Unrelated unrelated) {
			return unrelated;
		}

	}

	record Order(String id, Customer customer, Map<String, Integer> quantities) {
	}

	record Customer(String name) {
	}

	record Line(String sku) {
	}

	record Receipt(int lines) {
	}

	record Report(String at) {
	}

	record Unrelated(String value) {
	}

}
