package io.github.redisqueue.config;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.DeadLetterCallback;
import io.github.redisqueue.listener.QueueListenerContainer;
import io.github.redisqueue.support.micrometer.QueueListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.TaskExecutor;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;

/**
 * The standard container factory. A container's options are, from weakest to strongest: the
 * factory's {@link #setContainerOptions defaults}, the {@link #setQueueOptions per-queue
 * settings}, and what the endpoint ({@code @QueueListener}) names explicitly.
 *
 * @since 0.1.0
 */
public class DefaultQueueListenerContainerFactory implements QueueListenerContainerFactory {

	private final QueueTemplate template;

	private ContainerOptions containerOptions = ContainerOptions.defaults();

	private final Map<String, UnaryOperator<ContainerOptions>> queueOptions = new ConcurrentHashMap<>();

	private @Nullable DeadLetterCallback deadLetterCallback;

	private @Nullable TaskExecutor taskExecutor;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable QueueListenerObservationConvention observationConvention;

	public DefaultQueueListenerContainerFactory(QueueTemplate template) {
		this.template = template;
	}

	/** The engine the containers use. */
	public QueueTemplate getTemplate() {
		return this.template;
	}

	/** Options for every container unless a queue or endpoint says otherwise. */
	public void setContainerOptions(ContainerOptions containerOptions) {
		this.containerOptions = containerOptions;
	}

	public ContainerOptions getContainerOptions() {
		return this.containerOptions;
	}

	/**
	 * Settings for the containers of one queue, applied over the defaults.
	 * @param queue the queue name
	 * @param customizer changes the defaults into the queue's options
	 */
	public void setQueueOptions(String queue, UnaryOperator<ContainerOptions> customizer) {
		this.queueOptions.put(queue, customizer);
	}

	/** Told about every job the containers dead-letter. */
	public void setDeadLetterCallback(@Nullable DeadLetterCallback deadLetterCallback) {
		this.deadLetterCallback = deadLetterCallback;
	}

	/**
	 * Runs the jobs of every container (for example one on virtual threads); when unset each
	 * container has a fixed pool of {@code concurrency} threads.
	 */
	public void setTaskExecutor(@Nullable TaskExecutor taskExecutor) {
		this.taskExecutor = taskExecutor;
	}

	/** Observe every listener invocation of the containers. */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
	}

	/** Replace the default observation names and tags. */
	public void setObservationConvention(@Nullable QueueListenerObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	/**
	 * The options a container of this queue gets before its endpoint's own settings.
	 * @param queue the queue name
	 * @return the options
	 */
	public ContainerOptions optionsFor(String queue) {
		UnaryOperator<ContainerOptions> customizer = this.queueOptions.get(queue);
		return (customizer != null) ? customizer.apply(this.containerOptions) : this.containerOptions;
	}

	@Override
	public QueueListenerContainer createContainer(QueueListenerEndpoint endpoint,
			MessageHandlerMethodFactory methodFactory) {
		ContainerOptions options = endpoint.customize(optionsFor(endpoint.getQueue()));
		QueueListenerContainer container = new QueueListenerContainer(endpoint.getId(), endpoint.getQueue(),
				this.template, endpoint.createListener(methodFactory), options, this.deadLetterCallback, this.taskExecutor);
		container.setObservationRegistry(this.observationRegistry);
		container.setObservationConvention(this.observationConvention);
		return container;
	}

}
