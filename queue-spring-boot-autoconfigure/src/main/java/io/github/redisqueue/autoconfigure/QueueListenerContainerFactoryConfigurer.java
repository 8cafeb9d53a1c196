package io.github.redisqueue.autoconfigure;

import io.github.redisqueue.config.DefaultQueueListenerContainerFactory;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.DeadLetterCallback;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.core.task.TaskExecutor;

/**
 * Copies the {@code queue.listener.*} and {@code queue.queues.<name>.*} properties onto a
 * {@link DefaultQueueListenerContainerFactory}. Use it to build further factories with the same
 * defaults as the auto-configured one.
 *
 * @since 0.1.0
 */
public class QueueListenerContainerFactoryConfigurer {

	private final QueueProperties properties;

	private final @Nullable DeadLetterCallback deadLetterCallback;

	private final @Nullable TaskExecutor taskExecutor;

	private final @Nullable ObservationRegistry observationRegistry;

	/**
	 * Create a configurer.
	 * @param properties the properties to copy
	 * @param deadLetterCallback told about every dead-lettered job, if any
	 * @param taskExecutor runs the jobs of every container, if any
	 * @param observationRegistry observes every listener invocation, if any
	 */
	public QueueListenerContainerFactoryConfigurer(QueueProperties properties,
			@Nullable DeadLetterCallback deadLetterCallback, @Nullable TaskExecutor taskExecutor,
			@Nullable ObservationRegistry observationRegistry) {
		this.properties = properties;
		this.deadLetterCallback = deadLetterCallback;
		this.taskExecutor = taskExecutor;
		this.observationRegistry = observationRegistry;
	}

	/** The properties it copies. */
	QueueProperties getProperties() {
		return this.properties;
	}

	/**
	 * Configure a factory with the properties: {@code queue.listener.*} over the core defaults
	 * for every container, then {@code queue.queues.<name>.*} over those for the containers of
	 * each queue.
	 * @param factory the factory
	 */
	public void configure(DefaultQueueListenerContainerFactory factory) {
		factory.setContainerOptions(apply(ContainerOptions.defaults(), this.properties.getListener()));
		this.properties.getQueues()
			.forEach((queue, settings) -> factory.setQueueOptions(queue, (base) -> apply(base, settings)));
		PropertyMapper map = PropertyMapper.get();
		map.from(this.deadLetterCallback).to(factory::setDeadLetterCallback);
		map.from(this.taskExecutor).to(factory::setTaskExecutor);
		map.from(this.observationRegistry).to(factory::setObservationRegistry);
	}

	/**
	 * The given options with the listener settings that are set; each back-off value left unset
	 * keeps the one of the given options.
	 * @param base the options to start from
	 * @param settings the settings of one level ({@code queue.listener} or one queue)
	 * @return the options
	 */
	static ContainerOptions apply(ContainerOptions base, QueueListenerProperties settings) {
		ContainerOptions.Builder options = base.toBuilder();
		PropertyMapper map = PropertyMapper.get();
		map.from(settings::getConcurrency).to(options::concurrency);
		map.from(settings::getLease).to(options::lease);
		map.from(settings::getPrefetch).to(options::prefetch);
		map.from(settings::getPollInterval).to(options::pollInterval);
		map.from(settings::getShutdownTimeout).to(options::shutdownTimeout);
		map.from(settings::getMaxAttempts).to(options::maxAttempts);
		QueueListenerProperties.Backoff backoff = settings.getBackoff();
		map.from(backoff::getInitial).to(options::backOffInitial);
		map.from(backoff::getMultiplier).to(options::backOffMultiplier);
		map.from(backoff::getMax).to(options::backOffMax);
		map.from(settings::getAckMode).to(options::acknowledgementMode);
		map.from(settings::getAutoStartup).to(options::autoStartup);
		return options.build();
	}

}
