package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redisqueue.annotation.QueueListener;
import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReactiveQueueOperations;
import io.github.redisqueue.core.ReactiveQueueTemplate;
import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The reactive producer's auto-configuration: present with Reactor and a reactive connection
 * factory, absent without Reactor, backing off for a bean of the application's; and on a real
 * Redis, jobs it enqueues are handled by an ordinary {@code @QueueListener}.
 */
class QueueReactiveAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
				QueueReactiveAutoConfiguration.class, QueueListenerAutoConfiguration.class,
				QueueReaperAutoConfiguration.class));

	@Test
	void createsTheReactiveProducerWhenReactorIsPresent() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(ReactiveQueueOperations.class)
			.hasSingleBean(ReactiveQueueTemplate.class));
	}

	@Test
	void createsNoReactiveProducerWithoutReactor() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Mono.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(QueueTemplate.class)
				.doesNotHaveBean(ReactiveQueueOperations.class));
	}

	@Test
	void backsOffForAReactiveProducerOfTheApplication() {
		this.contextRunner.withUserConfiguration(OwnProducer.class)
			.run((context) -> assertThat(context).hasSingleBean(ReactiveQueueOperations.class).hasBean("ownProducer"));
	}

	@Test
	void jobsEnqueuedReactivelyAreHandledByAListener() {
		RedisEndpoint redis = TestRedis.shared();
		TestRedis.flushAll(redis);
		this.contextRunner.withPropertyValues(TestRedis.springProperties(redis))
			.withPropertyValues("queue.listener.poll-interval=200ms")
			.withUserConfiguration(Greeter.class)
			.run((context) -> {
				ReactiveQueueOperations queues = context.getBean(ReactiveQueueOperations.class);
				StepVerifier.create(queues.enqueue("greetings", new Greeting("Ada")))
					.assertNext((result) -> assertThat(result.duplicate()).isFalse())
					.verifyComplete();
				StepVerifier
					.create(queues.enqueueAll("greetings", List.of(new Greeting("Grace"), new Greeting("Edsger")),
							JobOptions.builder().priority(5).build()))
					.expectNextCount(2)
					.verifyComplete();
				BatchStatus batch = queues.batch("greetings").add(new Greeting("Barbara")).submit().block(Duration.ofSeconds(10));
				assertThat(batch).isNotNull();

				Greeter greeter = context.getBean(Greeter.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> greeter.names.size() == 4);
				assertThat(greeter.names).containsExactlyInAnyOrder("Ada", "Grace", "Edsger", "Barbara");
				QueueAdmin admin = context.getBean(QueueAdmin.class);
				await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("greetings").total("completed") == 4);
				StepVerifier.create(queues.batchStatus("greetings", batch.id()))
					.assertNext((status) -> assertThat(status.isFinished()).isTrue())
					.verifyComplete();
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnProducer {

		@Bean
		ReactiveQueueTemplate ownProducer(QueueTemplate queueTemplate) {
			return new ReactiveQueueTemplate(queueTemplate);
		}

	}

	record Greeting(String name) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Greeter {

		final List<String> names = new CopyOnWriteArrayList<>();

		@QueueListener(queue = "greetings", id = "greeter")
		void greet(Greeting greeting) {
			this.names.add(greeting.name());
		}

	}

}
