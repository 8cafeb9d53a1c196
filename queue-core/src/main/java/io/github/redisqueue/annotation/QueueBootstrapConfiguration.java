package io.github.redisqueue.annotation;

import io.github.redisqueue.config.QueueListenerConfigUtils;
import io.github.redisqueue.config.QueueListenerEndpointRegistry;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers the {@link QueueListenerAnnotationBeanPostProcessor} and the
 * {@link QueueListenerEndpointRegistry} under their constant names, unless already defined.
 *
 * @since 0.1.0
 */
public class QueueBootstrapConfiguration implements ImportBeanDefinitionRegistrar {

	@Override
	public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
		if (!registry.containsBeanDefinition(QueueListenerConfigUtils.ANNOTATION_PROCESSOR_BEAN_NAME)) {
			RootBeanDefinition processor = new RootBeanDefinition(QueueListenerAnnotationBeanPostProcessor.class);
			processor.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
			registry.registerBeanDefinition(QueueListenerConfigUtils.ANNOTATION_PROCESSOR_BEAN_NAME, processor);
		}
		if (!registry.containsBeanDefinition(QueueListenerConfigUtils.ENDPOINT_REGISTRY_BEAN_NAME)) {
			RootBeanDefinition endpointRegistry = new RootBeanDefinition(QueueListenerEndpointRegistry.class);
			endpointRegistry.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
			registry.registerBeanDefinition(QueueListenerConfigUtils.ENDPOINT_REGISTRY_BEAN_NAME, endpointRegistry);
		}
	}

}
