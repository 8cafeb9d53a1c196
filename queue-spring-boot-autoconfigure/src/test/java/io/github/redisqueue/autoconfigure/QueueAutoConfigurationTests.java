package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.util.concurrent.Executor;

import io.github.redisqueue.config.DefaultQueueListenerContainerFactory;
import io.github.redisqueue.config.QueueListenerConfigUtils;
import io.github.redisqueue.config.QueueListenerEndpointRegistry;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueScripts;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.DeadLetterCallback;
import io.github.redisqueue.listener.WorkerHeartbeat;
import io.github.redisqueue.listener.lease.QueueReaper;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.support.converter.JobSerializer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conditions and back-off of {@link QueueAutoConfiguration}. No Redis is contacted: connection
 * factories connect lazily and no listener is declared.
 */
class QueueAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
				QueueListenerAutoConfiguration.class, QueueReaperAutoConfiguration.class));

	@Test
	void createsTheEngineListenerSupportAndReaperByDefault() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(QueueTemplate.class)
				.hasSingleBean(QueueAdmin.class)
				.hasSingleBean(JobSerializer.class)
				.hasSingleBean(QueueScripts.class)
				.hasSingleBean(QueueSettings.class)
				.hasSingleBean(QueueReaper.class)
				.hasSingleBean(QueueListenerContainerFactoryConfigurer.class)
				.hasBean(QueueListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
				.hasBean(QueueListenerConfigUtils.ANNOTATION_PROCESSOR_BEAN_NAME)
				.hasSingleBean(QueueListenerEndpointRegistry.class);
			assertThat(context.getBean(QueueTemplate.class).getConnectionFactory())
				.isSameAs(context.getBean(LettuceConnectionFactory.class));
			assertThat(context.getBean(QueueAdmin.class).getTemplate()).isSameAs(context.getBean(QueueTemplate.class));
		});
	}

	@Test
	void backsOffFromAUserTemplateSerializerAndSettings() {
		this.contextRunner.withUserConfiguration(UserEngine.class).run((context) -> {
			assertThat(context).hasSingleBean(QueueTemplate.class).hasBean("myTemplate");
			assertThat(context.getBean(JobSerializer.class)).isSameAs(context.getBean("mySerializer"));
			assertThat(context.getBean(QueueSettings.class).keyPrefix()).isEqualTo("mine");
		});
	}

	@Test
	void backsOffFromAUserAdmin() {
		this.contextRunner.withUserConfiguration(UserAdmin.class).run((context) -> {
			assertThat(context).hasSingleBean(QueueAdminOperations.class)
				.hasBean("myAdmin")
				.doesNotHaveBean("queueAdmin")
				.hasSingleBean(QueueReaper.class)
				.hasSingleBean(WorkerHeartbeat.class);
			assertThat(context.getBean(QueueAdminOperations.class)).isSameAs(context.getBean("myAdmin"));
		});
	}

	@Test
	void templateUsesTheSerializerAndSettingsBeans() {
		this.contextRunner.withBean("mySerializer", JobSerializer.class, JacksonJobSerializer::new).run((context) -> {
			QueueTemplate template = context.getBean(QueueTemplate.class);
			assertThat(template.getSerializer()).isSameAs(context.getBean("mySerializer"));
			assertThat(template.getSettings()).isSameAs(context.getBean(QueueSettings.class));
		});
	}

	@Test
	void backsOffFromAUserContainerFactoryByName() {
		this.contextRunner.withUserConfiguration(UserFactory.class).run((context) -> {
			DefaultQueueListenerContainerFactory factory = context.getBean(
					QueueListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME, DefaultQueueListenerContainerFactory.class);
			assertThat(factory.getContainerOptions().concurrency()).isEqualTo(42);
		});
	}

	@Test
	void reaperIsAbsentWhenDisabled() {
		this.contextRunner.withPropertyValues("queue.reaper.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(QueueReaper.class)
				.doesNotHaveBean(QueueReaperAutoConfiguration.QueueReaperScheduler.class));
	}

	@Test
	void reaperSchedulesItselfWhenTheApplicationDoesNotUseScheduling() {
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(QueueReaper.class).isSelfScheduled()).isTrue();
			assertThat(context).hasSingleBean(QueueReaperAutoConfiguration.QueueReaperScheduler.class);
		});
	}

	// the reaper's own scheduler was a bean of type Executor: Boot's task execution backed off, and
	// @Async methods ran on the reaper's single thread
	@Test
	void theReapersOwnSchedulerLeavesTheApplicationItsTaskExecutor() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class))
			.run((context) -> {
				assertThat(context.getBean(QueueReaper.class).isSelfScheduled()).isTrue();
				assertThat(context).hasBean("applicationTaskExecutor");
				assertThat(context.getBeansOfType(Executor.class).values())
					.noneMatch((executor) -> executor instanceof ThreadPoolTaskScheduler);
			});
	}

	@Test
	void reaperIsLeftToTheApplicationsSchedulerUnderEnableScheduling() {
		this.contextRunner.withUserConfiguration(SchedulingApp.class).run((context) -> {
			assertThat(context.getBean(QueueReaper.class).isSelfScheduled()).isFalse();
			assertThat(context).doesNotHaveBean(QueueReaperAutoConfiguration.QueueReaperScheduler.class);
		});
	}

	@Test
	void redisUrlGivesTheQueuesAConnectionFactoryOfTheirOwn() {
		this.contextRunner.withPropertyValues("queue.redis.url=redis://127.0.0.1:6399").run((context) -> {
			LettuceConnectionFactory own = context.getBean(QueueAutoConfiguration.QUEUE_CONNECTION_FACTORY_BEAN_NAME,
					LettuceConnectionFactory.class);
			assertThat(own.getPort()).isEqualTo(6399);
			assertThat(context.getBean(QueueTemplate.class).getConnectionFactory()).isSameAs(own);
			assertThat(context.getBean(LettuceConnectionFactory.class)).isNotSameAs(own);
		});
	}

	@Test
	void theScriptsRunAsFunctionsUnlessTurnedOff() {
		this.contextRunner.run((context) -> assertThat(context.getBean(QueueScripts.class).functions()).isTrue());
		this.contextRunner.withPropertyValues("queue.redis.functions=false")
			.run((context) -> assertThat(context.getBean(QueueScripts.class).functions()).isFalse());
	}

	@Test
	void listenerDefaultsAndPerQueueSettingsAreBoundInOrder() {
		this.contextRunner
			.withPropertyValues("queue.listener.concurrency=4", "queue.listener.lease=45s",
					"queue.queues.emails.concurrency=9", "queue.queues.emails.prefetch=0", "queue.queues.emails.ack-mode=manual",
					"queue.queues.emails.backoff.initial=250ms")
			.run((context) -> {
				DefaultQueueListenerContainerFactory factory = context.getBean(
						QueueListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME,
						DefaultQueueListenerContainerFactory.class);
				assertThat(factory.optionsFor("other").concurrency()).isEqualTo(4);
				assertThat(factory.optionsFor("emails").concurrency()).isEqualTo(9);
				assertThat(factory.optionsFor("emails").prefetch()).isZero();
				// unset: adapts, up to 16 per thread
				assertThat(factory.optionsFor("other").prefetch()).isNull();
				assertThat(factory.optionsFor("other").maxPrefetch()).isEqualTo(64);
				assertThat(factory.optionsFor("emails").lease()).isEqualTo(Duration.ofSeconds(45));
				assertThat(factory.optionsFor("emails").acknowledgementMode()).isEqualTo(AcknowledgementMode.MANUAL);
				assertThat(factory.optionsFor("emails").backOff().start().nextBackOff()).isEqualTo(250);
				assertThat(factory.optionsFor("other").backOff().start().nextBackOff()).isEqualTo(1000);
			});
	}

	@Test
	void engineSettingsAreBound() {
		this.contextRunner
			.withPropertyValues("queue.key-prefix=jobs", "queue.worker-id=pod-7", "queue.max-payload-size=2KB",
					"queue.default-max-attempts=9", "queue.retention.completed=1h", "queue.reaper.batch=50",
					"queue.enqueue-timeout=750ms")
			.run((context) -> {
				assertThat(context.getBean(QueueTemplate.class).getEnqueueTimeout()).isEqualTo(Duration.ofMillis(750));
				QueueSettings settings = context.getBean(QueueTemplate.class).getSettings();
				assertThat(settings.keyPrefix()).isEqualTo("jobs");
				assertThat(settings.workerId()).isEqualTo("pod-7");
				assertThat(settings.maxPayloadBytes()).isEqualTo(2048);
				assertThat(settings.defaultMaxAttempts()).isEqualTo(9);
				assertThat(settings.completedRetention()).isEqualTo(Duration.ofHours(1));
				assertThat(settings.reapBatch()).isEqualTo(50);
			});
	}

	@Test
	void enqueuesAreTransactionAwareOnlyWhenAskedFor() {
		this.contextRunner
			.run((context) -> assertThat(context.getBean(QueueTemplate.class).isTransactionAware()).isFalse());
		this.contextRunner.withPropertyValues("queue.enqueue.transaction-aware=true")
			.run((context) -> assertThat(context.getBean(QueueTemplate.class).isTransactionAware()).isTrue());
	}

	@Test
	void resultBatchAndGroupSettingsAreBound() {
		this.contextRunner
			.withPropertyValues("queue.result-retention=2h", "queue.max-result-size=1KB", "queue.batch-retention=30m",
					"queue.default-group-concurrency=3", "queue.queues.reports.group-concurrency=8",
					"queue.queues.emails.concurrency=2")
			.run((context) -> {
				QueueSettings settings = context.getBean(QueueTemplate.class).getSettings();
				assertThat(settings.resultRetention()).isEqualTo(Duration.ofHours(2));
				assertThat(settings.maxResultBytes()).isEqualTo(1024);
				assertThat(settings.batchRetention()).isEqualTo(Duration.ofMinutes(30));
				assertThat(settings.groupConcurrency("reports")).isEqualTo(8);
				assertThat(settings.groupConcurrency("emails")).isEqualTo(3);
				assertThat(settings.groupConcurrency("other")).isEqualTo(3);
			});
	}

	@Test
	void zeroResultRetentionStoresNoResults() {
		this.contextRunner.withPropertyValues("queue.result-retention=0s")
			.run((context) -> assertThat(context.getBean(QueueTemplate.class).getSettings().resultRetention())
				.isZero());
	}

	@Test
	void deadLetterCallbackBeanIsWiredIntoTheFactory() {
		DeadLetterCallback callback = (job, cause) -> {
		};
		this.contextRunner.withBean(DeadLetterCallback.class, () -> callback)
			.run((context) -> assertThat(context).hasSingleBean(DeadLetterCallback.class)
				.hasBean(QueueListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME));
	}

	@Test
	void nothingIsCreatedWithoutTheLibraryOnTheClassPath() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(QueueTemplate.class))
			.run((context) -> assertThat(context).doesNotHaveBean(QueueTemplate.class)
				.doesNotHaveBean(QueueAdmin.class)
				.doesNotHaveBean(QueueReaper.class)
				.doesNotHaveBean(QueueListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME));
	}

	@Configuration(proxyBeanMethods = false)
	static class UserEngine {

		@Bean
		QueueTemplate myTemplate(LettuceConnectionFactory connectionFactory) {
			return new QueueTemplate(connectionFactory);
		}

		@Bean
		JobSerializer mySerializer() {
			return new JacksonJobSerializer();
		}

		@Bean
		QueueSettings mySettings() {
			return QueueSettings.builder().keyPrefix("mine").build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserAdmin {

		@Bean
		QueueAdmin myAdmin(QueueTemplate queueTemplate) {
			return new QueueAdmin(queueTemplate);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserFactory {

		@Bean
		DefaultQueueListenerContainerFactory queueListenerContainerFactory(QueueTemplate template) {
			DefaultQueueListenerContainerFactory factory = new DefaultQueueListenerContainerFactory(template);
			factory.setContainerOptions(factory.getContainerOptions().toBuilder().concurrency(42).build());
			return factory;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class SchedulingApp {

	}

}
