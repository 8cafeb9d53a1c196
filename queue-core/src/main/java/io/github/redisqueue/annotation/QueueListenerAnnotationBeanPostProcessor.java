package io.github.redisqueue.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;

import io.github.redisqueue.config.MethodQueueListenerEndpoint;
import io.github.redisqueue.config.QueueListenerConfigUtils;
import io.github.redisqueue.config.QueueListenerEndpointRegistrar;
import io.github.redisqueue.config.QueueListenerEndpointRegistry;
import io.github.redisqueue.core.QueueNames;
import io.github.redisqueue.listener.AcknowledgementMode;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * Finds {@link QueueListener @QueueListener} methods on beans (on the target class behind AOP
 * proxies) and registers one endpoint per method with the registrar; classes without such
 * methods are remembered and skipped. Containers are created once all singletons exist, after
 * every {@link QueueListenerConfigurer} had its say.
 *
 * @since 0.1.0
 */
public class QueueListenerAnnotationBeanPostProcessor
		implements BeanPostProcessor, Ordered, BeanFactoryAware, SmartInitializingSingleton {

	private final AnnotatedMethods<QueueListener> annotated = new AnnotatedMethods<>(QueueListener.class);

	private final QueueListenerEndpointRegistrar registrar = new QueueListenerEndpointRegistrar();

	private @Nullable BeanFactory beanFactory;

	@Override
	public int getOrder() {
		return LOWEST_PRECEDENCE;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
		this.registrar.setBeanFactory(beanFactory);
		this.annotated.setBeanFactory(beanFactory);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		this.annotated.of(bean).forEach((method, annotation) -> processListener(annotation, method, bean, beanName));
		return bean;
	}

	private void processListener(QueueListener annotation, Method method, Object bean, String beanName) {
		Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
		String where = method.getDeclaringClass().getSimpleName() + "." + method.getName();
		String queue = resolve(annotation.queue());
		if (queue == null) {
			throw new BeanInitializationException("@QueueListener on " + where + " names no queue");
		}
		try {
			QueueNames.validate(queue);
		}
		catch (IllegalArgumentException ex) {
			throw new BeanInitializationException("@QueueListener on " + where + ": " + ex.getMessage(), ex);
		}
		String id = resolve(annotation.id());
		MethodQueueListenerEndpoint endpoint = new MethodQueueListenerEndpoint((id != null) ? id : where, queue, bean,
				invocable);
		try {
			endpoint.setConcurrency(integer(resolve(annotation.concurrency())));
			endpoint.setPrefetch(integer(resolve(annotation.prefetch())));
			endpoint.setLease(duration(resolve(annotation.lease())));
			endpoint.setMaxAttempts(integer(resolve(annotation.maxAttempts())));
			String multiplier = resolve(annotation.backOffMultiplier());
			endpoint.setBackOff(duration(resolve(annotation.backOffInitial())),
					(multiplier != null) ? Double.valueOf(multiplier) : null, duration(resolve(annotation.backOffMax())));
			endpoint.setNotRetryable(List.of(annotation.notRetryable()));
			String ackMode = resolve(annotation.ackMode());
			endpoint.setAckMode((ackMode != null) ? AcknowledgementMode.valueOf(ackMode.trim().toUpperCase()) : null);
			String autoStartup = resolve(annotation.autoStartup());
			endpoint.setAutoStartup((autoStartup != null) ? Boolean.valueOf(autoStartup.trim()) : null);
		}
		catch (RuntimeException ex) {
			throw new BeanInitializationException(
					"@QueueListener on " + where + " (bean '" + beanName + "') has an invalid attribute: " + ex.getMessage(),
					ex);
		}
		this.registrar.registerEndpoint(endpoint, resolve(annotation.containerFactory()));
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.beanFactory instanceof ListableBeanFactory listable) {
			listable.getBeansOfType(QueueListenerConfigurer.class)
				.values()
				.forEach((configurer) -> configurer.configureQueueListeners(this.registrar));
		}
		if (this.registrar.getEndpointRegistry() == null && this.beanFactory != null) {
			this.registrar.setEndpointRegistry(this.beanFactory.getBean(
					QueueListenerConfigUtils.ENDPOINT_REGISTRY_BEAN_NAME, QueueListenerEndpointRegistry.class));
		}
		this.registrar.afterPropertiesSet();
	}

	private @Nullable String resolve(String value) {
		return this.annotated.resolve(value);
	}

	private static @Nullable Integer integer(@Nullable String value) {
		return (value != null) ? Integer.valueOf(value) : null;
	}

	private static @Nullable Duration duration(@Nullable String value) {
		return (value != null) ? DurationFormatterUtils.detectAndParse(value) : null;
	}

}
