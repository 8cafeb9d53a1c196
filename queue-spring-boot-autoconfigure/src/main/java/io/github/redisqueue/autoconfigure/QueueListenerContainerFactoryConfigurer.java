package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.util.function.BiFunction;
import java.util.function.Consumer;

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
		return ContainerOptions.defaults()
			.withConcurrency(listener.getConcurrency())
			.withLease(listener.getLease())
			.withPrefetch(listener.getPrefetch())
			.withPollInterval(listener.getPollInterval())
			.withShutdownTimeout(listener.getShutdownTimeout())
			.withMaxAttempts(listener.getMaxAttempts())
			.withBackOff(ContainerOptions.exponentialBackOff(backoff.getInitial(), backoff.getMultiplier(),
					backoff.getMax()))
			.withAcknowledgementMode(listener.getAckMode())
			.withAutoStartup(listener.isAutoStartup());
	}

	static ContainerOptions apply(ContainerOptions base, QueueListenerSettings settings) {
		Options options = new Options(base);
		PropertyMapper map = PropertyMapper.get();
		map.from(settings.getConcurrency()).to(options.with(ContainerOptions::withConcurrency));
		map.from(settings.getLease()).to(options.with(ContainerOptions::withLease));
		map.from(settings.getPrefetch()).to(options.with(ContainerOptions::withPrefetch));
		map.from(settings.getPollInterval()).to(options.with(ContainerOptions::withPollInterval));
		map.from(settings.getShutdownTimeout()).to(options.with(ContainerOptions::withShutdownTimeout));
		map.from(settings.getMaxAttempts()).to(options.with(ContainerOptions::withMaxAttempts));
		map.from(settings.getAckMode()).to(options.with(ContainerOptions::withAcknowledgementMode));
		map.from(settings.getAutoStartup()).to(options.with(ContainerOptions::withAutoStartup));
		if (settings.getBackoffInitial() != null || settings.getBackoffMultiplier() != null
				|| settings.getBackoffMax() != null) {
			options.value = options.value.withBackOff(ContainerOptions.exponentialBackOff(
					orDefault(settings.getBackoffInitial(), ContainerOptions.DEFAULT_BACKOFF_INITIAL),
					(settings.getBackoffMultiplier() != null) ? settings.getBackoffMultiplier()
							: ContainerOptions.DEFAULT_BACKOFF_MULTIPLIER,
					orDefault(settings.getBackoffMax(), ContainerOptions.DEFAULT_BACKOFF_MAX)));
		}
		return options.value;
	}

	private static Duration orDefault(@Nullable Duration value, Duration fallback) {
		return (value != null) ? value : fallback;
	}

	/** Immutable options changed one property at a time. */
	private static final class Options {

		private ContainerOptions value;

		Options(ContainerOptions value) {
			this.value = value;
		}

		<T> Consumer<T> with(BiFunction<ContainerOptions, T, ContainerOptions> wither) {
			return (argument) -> this.value = wither.apply(this.value, argument);
		}

	}

}
