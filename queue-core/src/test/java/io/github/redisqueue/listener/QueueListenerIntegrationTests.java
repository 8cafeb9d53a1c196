package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import io.github.redisqueue.annotation.QueueListener;
import io.github.redisqueue.core.DeadJob;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.support.JobMetadata;
import io.github.redisqueue.support.QueueHeaders;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @QueueListener} end to end on a real Redis: payload conversion, metadata and header
 * arguments, retries with back-off, dead letters, fatal failures.
 */
class QueueListenerIntegrationTests extends AbstractRedisIntegrationTests {

	private AnnotationConfigApplicationContext context;

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	private QueueTemplate start(UnaryOperator<ContainerOptions> options, Class<?>... listeners) {
		// the context owns (and destroys) its connection factory
		this.context = ListenerTestSupport.context(TestRedis.connectionFactory(endpoint()), options, listeners);
		return this.context.getBean(QueueTemplate.class);
	}

	@Test
	void listenerReceivesTheConvertedPayloadMetadataAndHeaders() {
		QueueTemplate queues = start(UnaryOperator.identity(), Greeter.class);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("greetings", new Greeting("Ada", 3),
				JobOptions.builder().header("tenant", "acme").build()).id();

		Greeter greeter = this.context.getBean(Greeter.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> greeter.received.size() == 1);
		Received received = greeter.received.get(0);
		assertThat(received.greeting()).isEqualTo(new Greeting("Ada", 3));
		assertThat(received.metadata().id()).isEqualTo(id);
		assertThat(received.metadata().queue()).isEqualTo("greetings");
		assertThat(received.metadata().attempt()).isEqualTo(1);
		assertThat(received.tenant()).isEqualTo("acme");
		assertThat(received.jobId()).isEqualTo(id);
		await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("greetings").total("completed") == 1);
		assertThat(admin.counts("greetings").pending()).isZero();
	}

	@Test
	void genericPayloadTypesAreReadFromTheMethodSignature() {
		QueueTemplate queues = start(UnaryOperator.identity(), ListReader.class);
		queues.enqueue("lists", List.of(new Greeting("a", 1), new Greeting("b", 2)));

		ListReader reader = this.context.getBean(ListReader.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> !reader.received.isEmpty());
		assertThat(reader.received.get(0)).containsExactly(new Greeting("a", 1), new Greeting("b", 2));
	}

	@Test
	void failingListenerIsRetriedWithBackOffThenDeadLetteredWithTheErrorAndTheCallbackRuns() {
		QueueTemplate queues = start(UnaryOperator.identity(), AlwaysFails.class, DeadLetters.class);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("flaky", "x", JobOptions.builder().maxAttempts(3).build()).id();

		AlwaysFails listener = this.context.getBean(AlwaysFails.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> admin.counts("flaky").dead() == 1);
		assertThat(listener.attempts).containsExactly(1, 2, 3);
		assertThat(listener.times.get(1) - listener.times.get(0)).isGreaterThanOrEqualTo(45);
		assertThat(listener.times.get(2) - listener.times.get(1)).isGreaterThanOrEqualTo(95);
		DeadJob dead = admin.deadLetters("flaky", 0, 10).get(0);
		assertThat(dead.id()).isEqualTo(id);
		assertThat(dead.attempts()).isEqualTo(3);
		assertThat(dead.error()).contains("IllegalStateException").contains("boom on attempt 3");
		assertThat(admin.counts("flaky").total("failed")).isEqualTo(2);
		DeadLetters callback = this.context.getBean(DeadLetters.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> callback.jobs.containsKey(id));
		assertThat(callback.jobs.get(id)).hasMessage("boom on attempt 3");
	}

	@Test
	void exceptionMarkedNotRetryableDeadLettersAtTheFirstAttempt() {
		QueueTemplate queues = start(UnaryOperator.identity(), RefusesBadInput.class);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("strict", "x", JobOptions.builder().maxAttempts(5).build());

		await().atMost(Duration.ofSeconds(10)).until(() -> admin.counts("strict").dead() == 1);
		assertThat(this.context.getBean(RefusesBadInput.class).calls).hasValue(1);
		assertThat(admin.deadLetters("strict", 0, 1).get(0).error()).contains("IllegalArgumentException");
	}

	@Test
	void unconvertiblePayloadIsDeadLetteredWithTheReasonAndOtherJobsGoOn() {
		QueueTemplate queues = start(UnaryOperator.identity(), Greeter.class);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("greetings", List.of("not", "a", "greeting"));
		queues.enqueue("greetings", new Greeting("Bob", 1), JobOptions.builder().header("tenant", "acme").build());

		Greeter greeter = this.context.getBean(Greeter.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> greeter.received.size() == 1 && admin.counts("greetings").dead() == 1);
		assertThat(greeter.received.get(0).greeting().name()).isEqualTo("Bob");
		DeadJob dead = admin.deadLetters("greetings", 0, 1).get(0);
		assertThat(dead.attempts()).isEqualTo(1);
		assertThat(dead.error()).contains("Greeting");
	}

	@Test
	void missingRequiredHeaderDeadLettersTheJobAtTheFirstAttempt() {
		QueueTemplate queues = start(UnaryOperator.identity(), Greeter.class);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("greetings", new Greeting("Eve", 1), JobOptions.builder().maxAttempts(5).build());

		await().atMost(Duration.ofSeconds(10)).until(() -> admin.counts("greetings").dead() == 1);
		DeadJob dead = admin.deadLetters("greetings", 0, 1).get(0);
		assertThat(dead.attempts()).isEqualTo(1);
		assertThat(dead.error()).contains("tenant");
		assertThat(this.context.getBean(Greeter.class).received).isEmpty();
	}

	@Test
	void queueAndConcurrencyComeFromPlaceholders() {
		System.setProperty("test.queue.name", "placeholders");
		try {
			QueueTemplate queues = start(UnaryOperator.identity(), PlaceholderListener.class);
			QueueAdmin admin = new QueueAdmin(queues);
			queues.enqueue("placeholders", "x");
			await().atMost(Duration.ofSeconds(10))
				.until(() -> admin.counts("placeholders").total("completed") == 1);
			assertThat(ListenerTestSupport.registry(this.context).getListenerContainer("placeholder-listener")
				.getOptions()
				.concurrency()).isEqualTo(3);
		}
		finally {
			System.clearProperty("test.queue.name");
		}
	}

	record Greeting(String name, int times) {
	}

	record Received(Greeting greeting, JobMetadata metadata, String tenant, String jobId) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Greeter {

		final List<Received> received = new CopyOnWriteArrayList<>();

		@QueueListener("greetings")
		void greet(Greeting greeting, JobMetadata metadata, @Header("tenant") String tenant,
				@Header(QueueHeaders.JOB_ID) String jobId) {
			this.received.add(new Received(greeting, metadata, tenant, jobId));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ListReader {

		final List<List<Greeting>> received = new CopyOnWriteArrayList<>();

		@QueueListener("lists")
		void read(List<Greeting> greetings) {
			this.received.add(greetings);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AlwaysFails {

		final List<Integer> attempts = new CopyOnWriteArrayList<>();

		final List<Long> times = new CopyOnWriteArrayList<>();

		@QueueListener("flaky")
		void fail(String payload, JobMetadata metadata) {
			this.attempts.add(metadata.attempt());
			this.times.add(System.currentTimeMillis());
			throw new IllegalStateException("boom on attempt " + metadata.attempt());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class DeadLetters {

		final Map<String, Throwable> jobs = new ConcurrentHashMap<>();

		@Bean
		DeadLetterCallback deadLetterCallback() {
			return (ReservedJob job, Throwable cause) -> this.jobs.put(job.id(), cause);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RefusesBadInput {

		final AtomicInteger calls = new AtomicInteger();

		@QueueListener(queue = "strict", notRetryable = IllegalArgumentException.class)
		void handle(String payload) {
			this.calls.incrementAndGet();
			throw new IllegalArgumentException("bad input");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PlaceholderListener {

		@QueueListener(queue = "${test.queue.name}", id = "placeholder-listener", concurrency = "#{1 + 2}")
		void handle(String payload) {
		}

	}

}
