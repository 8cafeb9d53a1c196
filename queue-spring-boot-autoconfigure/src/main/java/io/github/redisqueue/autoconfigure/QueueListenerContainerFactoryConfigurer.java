package io.github.redisqueue.autoconfigure;

import java.time.Duration;

import io.github.redisqueue.autoconfigure.QueueProperties.QueueListenerSettings;
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
	 * Configure a factory with the properties.
	 * @param factory the factory
	 */
	public void configure(DefaultQueueListenerContainerFactory factory) {
		factory.setContainerOptions(defaults(this.properties.getListener()));
		this.properties.getQueues()
			.forEach((queue, settings) -> factory.setQueueOptions(queue, (base) -> apply(base, settings)));
		PropertyMapper map = PropertyMapper.get();
		map.from(this.deadLetterCallback).to(factory::setDeadLetterCallback);
		map.from(this.taskExecutor).to(factory::setTaskExecutor);
		map.from(this.observationRegistry).to(factory::setObservationRegistry);
	}

	static ContainerOptions defaults(QueueProperties.Listener listener) {
		QueueProperties.BackOff backoff = listener.getBackoff();
		return ContainerOptions.builder()
			.concurrency(listener.getConcurrency())
			.lease(listener.getLease())
			.prefetch(listener.getPrefetch())
			.pollInterval(listener.getPollInterval())
			.shutdownTimeout(listener.getShutdownTimeout())
			.maxAttempts(listener.getMaxAttempts())
			.backOff(backoff.getInitial(), backoff.getMultiplier(), backoff.getMax())
			.acknowledgementMode(listener.getAckMode())
			.autoStartup(listener.isAutoStartup())
			.build();
	}

	static ContainerOptions apply(ContainerOptions base, QueueListenerSettings settings) {
		ContainerOptions.Builder options = base.toBuilder();
		PropertyMapper map = PropertyMapper.get();
		map.from(settings.getConcurrency()).to(options::concurrency);
		map.from(settings.getLease()).to(options::lease);
		map.from(settings.getPrefetch()).to(options::prefetch);
		map.from(settings.getPollInterval()).to(options::pollInterval);
		map.from(settings.getShutdownTimeout()).to(options::shutdownTimeout);
		map.from(settings.getMaxAttempts()).to(options::maxAttempts);
		map.from(settings.getAckMode()).to(options::acknowledgementMode);
		map.from(settings.getAutoStartup()).to(options::autoStartup);
		if (settings.getBackoffInitial() != null || settings.getBackoffMultiplier() != null
				|| settings.getBackoffMax() != null) {
			options.backOff(orDefault(settings.getBackoffInitial(), ContainerOptions.DEFAULT_BACKOFF_INITIAL),
					(settings.getBackoffMultiplier() != null) ? settings.getBackoffMultiplier()
							: ContainerOptions.DEFAULT_BACKOFF_MULTIPLIER,
					orDefault(settings.getBackoffMax(), ContainerOptions.DEFAULT_BACKOFF_MAX));
		}
		return options.build();
	}

	private static Duration orDefault(@Nullable Duration value, Duration fallback) {
		return (value != null) ? value : fallback;
	}

}
