package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redisqueue.actuate.endpoint.PartitionDescriptor;
import io.github.redisqueue.actuate.endpoint.QueueDescriptor;
import io.github.redisqueue.actuate.endpoint.QueueDetailsDescriptor;
import io.github.redisqueue.actuate.endpoint.QueuesEndpoint;
import io.github.redisqueue.annotation.QueueListener;
import io.github.redisqueue.autoconfigure.endpoint.QueuesEndpointAutoConfiguration;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.lease.QueueReaper;
import io.github.redisqueue.support.JobMetadata;
import io.github.redisqueue.test.RedisClock;
import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The auto-configuration on a real Redis: an annotated listener receives what the auto-configured
 * template enqueues, with settings from application properties.
 */
class QueueAutoConfigurationIntegrationTests {

	private final RedisEndpoint redis = TestRedis.shared();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
				QueueListenerAutoConfiguration.class, QueueReaperAutoConfiguration.class))
		.withPropertyValues(TestRedis.springProperties(this.redis))
		.withPropertyValues("queue.listener.poll-interval=200ms", "queue.queues.greetings.concurrency=3");

	@BeforeEach
	void flush() {
		TestRedis.flushAll(this.redis);
	}

	@Test
	void annotatedListenerReceivesEnqueuedJobs() {
		this.contextRunner.withUserConfiguration(Greeter.class).run((context) -> {
			QueueTemplate queues = context.getBean(QueueTemplate.class);
			QueueAdmin admin = context.getBean(QueueAdmin.class);
			queues.enqueue("greetings", new Greeting("Ada"));
			queues.enqueue("greetings", new Greeting("Grace"));

			Greeter greeter = context.getBean(Greeter.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> greeter.names.size() == 2);
			assertThat(greeter.names).containsExactlyInAnyOrder("Ada", "Grace");
			await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("greetings").total("completed") == 2);
			assertThat(context.getBean(io.github.redisqueue.config.QueueListenerEndpointRegistry.class)
				.getListenerContainer("greeter")
				.getOptions()
				.concurrency()).isEqualTo(3);
		});
	}

	@Test
	void rateLimitFromPropertiesHoldsBackTheListenerAndShowsInTheEndpoint() {
		this.contextRunner.withUserConfiguration(Greeter.class)
			.withConfiguration(AutoConfigurations.of(QueuesEndpointAutoConfiguration.class))
			.withPropertyValues("queue.queues.greetings.rate-limit=3/1m",
					"management.endpoints.web.exposure.include=queues")
			.run((context) -> {
				QueueTemplate queues = context.getBean(QueueTemplate.class);
				for (String name : new String[] { "Ada", "Grace", "Edsger", "Barbara", "Alan" }) {
					queues.enqueue("greetings", new Greeting(name));
				}
				Greeter greeter = context.getBean(Greeter.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> greeter.names.size() == 3);
				RedisClock.awaitElapsed(context.getBean(StringRedisTemplate.class), Duration.ofSeconds(1));
				assertThat(greeter.names).hasSize(3);
				QueueDescriptor counts = context.getBean(QueuesEndpoint.class).queues().get("greetings");
				assertThat(counts.rateLimit()).isEqualTo("3/1m");
				assertThat(counts.ready()).isEqualTo(2);
			});
	}

	@Test
	void selfScheduledReaperReturnsAnExpiredLeaseWithNobodyReserving() {
		this.contextRunner.withPropertyValues("queue.reaper.interval=100ms").run((context) -> {
			QueueTemplate queues = context.getBean(QueueTemplate.class);
			QueueAdmin admin = context.getBean(QueueAdmin.class);
			String id = queues.enqueue("orphans", "x").id();
			queues.reserve("orphans", 1, Duration.ofMillis(50));

			await().atMost(Duration.ofSeconds(30))
				.until(() -> admin.job("orphans", id).orElseThrow().state() == JobState.READY);
			assertThat(context.getBean(QueueReaper.class).getPasses()).isPositive();
		});
	}

	@Test
	void reaperRunsOnTheApplicationsSchedulerUnderEnableScheduling() {
		this.contextRunner.withUserConfiguration(SchedulingApp.class)
			.withPropertyValues("queue.reaper.interval=100ms")
			.run((context) -> {
				QueueReaper reaper = context.getBean(QueueReaper.class);
				assertThat(reaper.isSelfScheduled()).isFalse();
				await().atMost(Duration.ofSeconds(30)).until(() -> reaper.getPasses() >= 2);
			});
	}

	@Test
	void aQueuePartitionedInPropertiesIsConsumedWholeAndShownPerPartition() {
		this.contextRunner.withUserConfiguration(OrderHandler.class)
			.withPropertyValues("queue.queues.orders.partitions=3", "queue.queues.orders.concurrency=4")
			.run((context) -> {
				QueueTemplate queues = context.getBean(QueueTemplate.class);
				QueueAdmin admin = context.getBean(QueueAdmin.class);
				assertThat(queues.partitionNames("orders")).containsExactly("orders~0", "orders~1", "orders~2");
				for (int i = 0; i < 30; i++) {
					queues.enqueue("orders", new Greeting("order-" + i),
							io.github.redisqueue.core.JobOptions.builder().partitionKey("customer-" + (i % 4)).build());
				}
				queues.enqueueAll("orders", List.of(new Greeting("bulk-1"), new Greeting("bulk-2"), new Greeting("bulk-3")),
						io.github.redisqueue.core.JobOptions.defaults());
				OrderHandler handler = context.getBean(OrderHandler.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> handler.names.size() == 33);
				await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("orders").total("completed") == 33);

				assertThat(admin.overview().queues()).containsOnlyKeys("orders");
				QueueDetailsDescriptor details = new QueuesEndpoint(admin).queue("orders", null, null, null, null);
				assertThat(details.counts().totals()).containsEntry("completed", 33L);
				assertThat(details.partitions()).extracting(PartitionDescriptor::name)
					.containsExactly("orders~0", "orders~1", "orders~2");
				assertThat(details.partitions().stream().mapToLong((partition) -> partition.counts().totals()
					.getOrDefault("completed", 0L)).sum()).isEqualTo(33);
				assertThat(details.partitions()).extracting(PartitionDescriptor::slot).doesNotHaveDuplicates();
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class OrderHandler {

		final List<String> names = new CopyOnWriteArrayList<>();

		@QueueListener(queue = "orders", id = "orders")
		void handle(Greeting order) {
			this.names.add(order.name());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class SchedulingApp {

	}

	record Greeting(String name) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Greeter {

		final List<String> names = new CopyOnWriteArrayList<>();

		@QueueListener(queue = "greetings", id = "greeter")
		void greet(Greeting greeting, JobMetadata metadata) {
			this.names.add(greeting.name());
		}

	}

}
