package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.function.UnaryOperator;

import io.github.redisqueue.annotation.EnableQueueListeners;
import io.github.redisqueue.config.DefaultQueueListenerContainerFactory;
import io.github.redisqueue.config.QueueListenerConfigUtils;
import io.github.redisqueue.config.QueueListenerEndpointRegistry;
import io.github.redisqueue.core.QueueTemplate;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Builds a plain Spring context with {@code @EnableQueueListeners}, a template on the test's
 * Redis, and a container factory with short, test-friendly options.
 */
final class ListenerTestSupport {

	private ListenerTestSupport() {
	}

	static AnnotationConfigApplicationContext context(RedisConnectionFactory connectionFactory,
			UnaryOperator<ContainerOptions> options, Class<?>... listeners) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(RedisConnectionFactory.class, () -> connectionFactory);
		context.registerBean(OptionsHolder.class, () -> new OptionsHolder(options));
		context.register(Infrastructure.class);
		context.register(listeners);
		context.refresh();
		return context;
	}

	static ContainerOptions fast(ContainerOptions options) {
		return options.toBuilder().pollInterval(Duration.ofMillis(200))
			.shutdownTimeout(Duration.ofSeconds(5))
			.backOff(Duration.ofMillis(50), 2.0, Duration.ofMillis(200))
			.build();
	}

	static QueueListenerEndpointRegistry registry(AnnotationConfigApplicationContext context) {
		return context.getBean(QueueListenerConfigUtils.ENDPOINT_REGISTRY_BEAN_NAME,
				QueueListenerEndpointRegistry.class);
	}

	record OptionsHolder(UnaryOperator<ContainerOptions> options) {
	}

	@Configuration(proxyBeanMethods = false)
	@EnableQueueListeners
	static class Infrastructure {

		@Bean
		QueueTemplate queueTemplate(RedisConnectionFactory connectionFactory) {
			return new QueueTemplate(connectionFactory);
		}

		@Bean
		DefaultQueueListenerContainerFactory queueListenerContainerFactory(QueueTemplate queueTemplate,
				OptionsHolder holder, org.springframework.beans.factory.ObjectProvider<DeadLetterCallback> callback) {
			DefaultQueueListenerContainerFactory factory = new DefaultQueueListenerContainerFactory(queueTemplate);
			factory.setContainerOptions(holder.options().apply(fast(ContainerOptions.defaults())));
			factory.setDeadLetterCallback(callback.getIfAvailable());
			return factory;
		}

	}

}
