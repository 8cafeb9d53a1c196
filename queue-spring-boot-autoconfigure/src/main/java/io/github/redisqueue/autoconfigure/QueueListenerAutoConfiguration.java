package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redisqueue.annotation.EnableQueueListeners;
import io.github.redisqueue.config.DefaultQueueListenerContainerFactory;
import io.github.redisqueue.config.QueueListenerConfigUtils;
import io.github.redisqueue.config.QueueListenerEndpointRegistry;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.DeadLetterCallback;
import io.github.redisqueue.listener.QueueListenerContainer;
import io.github.redisqueue.listener.WorkerHeartbeat;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Auto-configuration of {@code @QueueListener} support: the configurer, the default container
 * factory (by name), and {@link EnableQueueListeners} unless the application already enabled it.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnBean(QueueTemplate.class)
public final class QueueListenerAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	QueueListenerContainerFactoryConfigurer queueListenerContainerFactoryConfigurer(QueueProperties properties,
			ObjectProvider<DeadLetterCallback> deadLetterCallback, ObjectProvider<ObservationRegistry> observationRegistry,
			Environment environment) {
		SimpleAsyncTaskExecutor executor = null;
		if (Threading.VIRTUAL.isActive(environment)) {
			executor = new SimpleAsyncTaskExecutor("queue-");
			executor.setVirtualThreads(true);
		}
		return new QueueListenerContainerFactoryConfigurer(properties, deadLetterCallback.getIfAvailable(), executor,
				observationRegistry.getIfUnique());
	}

	@Bean(name = QueueListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
	@ConditionalOnMissingBean(name = QueueListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
	DefaultQueueListenerContainerFactory queueListenerContainerFactory(QueueListenerContainerFactoryConfigurer configurer,
			QueueTemplate queueTemplate) {
		checkPollIntervals(queueTemplate, configurer.getProperties());
		DefaultQueueListenerContainerFactory factory = new DefaultQueueListenerContainerFactory(queueTemplate);
		configurer.configure(factory);
		return factory;
	}

	/**
	 * An idle listener blocks on Redis for up to its poll interval: a Redis command timeout that
	 * is not longer cuts every such wait off with a timeout, which the fetch loop can only log as
	 * a failure. Refused at startup, naming both settings.
	 */
	static void checkPollIntervals(QueueTemplate queueTemplate, QueueProperties properties) {
		if (!(queueTemplate.getConnectionFactory() instanceof LettuceConnectionFactory lettuce)) {
			return;
		}
		Duration timeout = Duration.ofMillis(lettuce.getTimeout());
		Map<String, Duration> pollIntervals = new LinkedHashMap<>();
		Duration listenerPollInterval = properties.getListener().getPollInterval();
		pollIntervals.put("queue.listener.poll-interval",
				(listenerPollInterval != null) ? listenerPollInterval : ContainerOptions.DEFAULT_POLL_INTERVAL);
		properties.getQueues().forEach((queue, settings) -> {
			if (settings.getPollInterval() != null) {
				pollIntervals.put("queue.queues.[" + queue + "].poll-interval", settings.getPollInterval());
			}
		});
		pollIntervals.forEach((property, pollInterval) -> {
			if (pollInterval.compareTo(timeout) >= 0) {
				throw new IllegalStateException(property + " (" + pollInterval + ") must be shorter than the Redis "
						+ "command timeout of the queues' connection (spring.data.redis.timeout, or the timeout of "
						+ "queue.redis.url: " + timeout + "): an idle listener blocks on Redis for up to its poll "
						+ "interval, and every such wait would time out. Raise the timeout above the poll interval "
						+ "plus a margin, or lower the poll interval.");
			}
		});
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "queue.workers.enabled", matchIfMissing = true)
	WorkerHeartbeat queueWorkerHeartbeat(QueueAdminOperations queueAdmin, QueueTemplate queueTemplate,
			QueueProperties properties, ObjectProvider<QueueListenerEndpointRegistry> registry) {
		return new WorkerHeartbeat(queueAdmin, queueTemplate.getSettings().workerId(),
				() -> registry.stream()
					.flatMap((r) -> r.getListenerContainers().stream())
					.map(QueueListenerContainer::getQueue)
					.distinct()
					.toList(),
				() -> registry.stream()
					.flatMap((r) -> r.getListenerContainers().stream())
					.mapToInt(QueueListenerContainer::getRunningJobs)
					.sum(),
				properties.getWorkers().getHeartbeatInterval(), properties.getWorkers().getTimeToLive());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableQueueListeners
	@ConditionalOnMissingBean(name = QueueListenerConfigUtils.ANNOTATION_PROCESSOR_BEAN_NAME)
	static class EnableQueueListenersConfiguration {

	}

}
