package io.github.redisqueue.config;

import java.util.ArrayList;
import java.util.List;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.support.converter.JobMessageConverter;
import io.github.redisqueue.support.converter.JobSerializer;
import io.github.redisqueue.support.resolver.AcknowledgementArgumentResolver;
import io.github.redisqueue.support.resolver.FatalResolutionArgumentResolver;
import io.github.redisqueue.support.resolver.BatchCompletionArgumentResolver;
import io.github.redisqueue.support.resolver.JobMetadataArgumentResolver;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.format.support.DefaultFormattingConversionService;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.messaging.handler.annotation.support.HeaderMethodArgumentResolver;
import org.springframework.messaging.handler.annotation.support.HeadersMethodArgumentResolver;
import org.springframework.messaging.handler.annotation.support.MessageMethodArgumentResolver;
import org.springframework.messaging.handler.annotation.support.PayloadMethodArgumentResolver;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.util.Assert;

/**
 * Holds endpoints until the application's singletons exist, then resolves each one's container
 * factory and hands both to the {@link QueueListenerEndpointRegistry}. Owns the
 * {@link MessageHandlerMethodFactory}: payload conversion through the application's
 * {@link JobSerializer}, and the argument resolvers for metadata and acknowledgement.
 *
 * @since 0.1.0
 */
public class QueueListenerEndpointRegistrar implements BeanFactoryAware, InitializingBean {

	private final List<Registration> registrations = new ArrayList<>();

	private final List<HandlerMethodArgumentResolver> customArgumentResolvers = new ArrayList<>();

	private @Nullable BeanFactory beanFactory;

	private @Nullable QueueListenerEndpointRegistry endpointRegistry;

	private @Nullable QueueListenerContainerFactory containerFactory;

	private String containerFactoryBeanName = QueueListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME;

	private @Nullable MessageHandlerMethodFactory messageHandlerMethodFactory;

	private boolean registered;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	public void setEndpointRegistry(QueueListenerEndpointRegistry endpointRegistry) {
		this.endpointRegistry = endpointRegistry;
	}

	public @Nullable QueueListenerEndpointRegistry getEndpointRegistry() {
		return this.endpointRegistry;
	}

	/** The factory for endpoints that name none; wins over the bean name. */
	public void setContainerFactory(QueueListenerContainerFactory containerFactory) {
		this.containerFactory = containerFactory;
	}

	/** Bean name of the factory for endpoints that name none. */
	public void setContainerFactoryBeanName(String containerFactoryBeanName) {
		this.containerFactoryBeanName = containerFactoryBeanName;
	}

	/** Replace the handler method factory entirely. */
	public void setMessageHandlerMethodFactory(MessageHandlerMethodFactory messageHandlerMethodFactory) {
		this.messageHandlerMethodFactory = messageHandlerMethodFactory;
	}

	/** Add argument resolvers for listener method parameters. */
	public void addArgumentResolvers(HandlerMethodArgumentResolver... resolvers) {
		this.customArgumentResolvers.addAll(List.of(resolvers));
	}

	/**
	 * Register an endpoint.
	 * @param endpoint the endpoint
	 * @param containerFactoryBeanName its factory's bean name, or {@code null} for the default
	 */
	public void registerEndpoint(QueueListenerEndpoint endpoint, @Nullable String containerFactoryBeanName) {
		synchronized (this.registrations) {
			Registration registration = new Registration(endpoint, containerFactoryBeanName);
			if (this.registered) {
				register(registration, true);
			}
			else {
				this.registrations.add(registration);
			}
		}
	}

	@Override
	public void afterPropertiesSet() {
		synchronized (this.registrations) {
			for (Registration registration : this.registrations) {
				register(registration, false);
			}
			this.registrations.clear();
			this.registered = true;
		}
	}

	private void register(Registration registration, boolean startImmediately) {
		Assert.state(this.endpointRegistry != null, "No QueueListenerEndpointRegistry set");
		this.endpointRegistry.registerListenerContainer(registration.endpoint(), resolveFactory(registration),
				getMessageHandlerMethodFactory(), startImmediately);
	}

	private QueueListenerContainerFactory resolveFactory(Registration registration) {
		if (registration.factoryBeanName() != null) {
			return requireBeanFactory().getBean(registration.factoryBeanName(), QueueListenerContainerFactory.class);
		}
		if (this.containerFactory != null) {
			return this.containerFactory;
		}
		BeanFactory factory = requireBeanFactory();
		if (!factory.containsBean(this.containerFactoryBeanName)) {
			throw new IllegalStateException("No container factory for listener '" + registration.endpoint().getId()
					+ "': define a QueueListenerContainerFactory bean named '" + this.containerFactoryBeanName
					+ "' or name one in @QueueListener(containerFactory = ...)");
		}
		return factory.getBean(this.containerFactoryBeanName, QueueListenerContainerFactory.class);
	}

	/** The handler method factory, built on first use unless one was set. */
	public MessageHandlerMethodFactory getMessageHandlerMethodFactory() {
		if (this.messageHandlerMethodFactory == null) {
			DefaultMessageHandlerMethodFactory factory = new DefaultMessageHandlerMethodFactory();
			JobSerializer serializer = (this.beanFactory != null)
					? this.beanFactory.getBeanProvider(JobSerializer.class).getIfAvailable(JacksonJobSerializer::new)
					: new JacksonJobSerializer();
			JobMessageConverter converter = new JobMessageConverter(serializer);
			factory.setMessageConverter(converter);
			// the default resolvers, each wrapped so a resolution failure is fatal (dead letter)
			ConfigurableBeanFactory configurable = (this.beanFactory instanceof ConfigurableBeanFactory cbf) ? cbf : null;
			List<HandlerMethodArgumentResolver> resolvers = new ArrayList<>();
			resolvers.add(new HeaderMethodArgumentResolver(new DefaultFormattingConversionService(), configurable));
			resolvers.add(new HeadersMethodArgumentResolver());
			resolvers.add(new MessageMethodArgumentResolver(converter));
			resolvers.add(new JobMetadataArgumentResolver());
			resolvers.add(new BatchCompletionArgumentResolver());
			resolvers.add(new AcknowledgementArgumentResolver());
			resolvers.addAll(this.customArgumentResolvers);
			resolvers.add(new PayloadMethodArgumentResolver(converter));
			factory.setArgumentResolvers(resolvers.stream()
				.map((resolver) -> (HandlerMethodArgumentResolver) new FatalResolutionArgumentResolver(resolver))
				.toList());
			if (this.beanFactory != null) {
				factory.setBeanFactory(this.beanFactory);
			}
			factory.afterPropertiesSet();
			this.messageHandlerMethodFactory = factory;
		}
		return this.messageHandlerMethodFactory;
	}

	private BeanFactory requireBeanFactory() {
		Assert.state(this.beanFactory != null, "No BeanFactory set");
		return this.beanFactory;
	}

	private record Registration(QueueListenerEndpoint endpoint, @Nullable String factoryBeanName) {
	}

}
