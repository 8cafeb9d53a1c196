package io.github.redisqueue.annotation;

import io.github.redisqueue.config.QueueListenerEndpointRegistrar;

/**
 * Callback for beans that want to adjust the listener registrar before containers are created:
 * register endpoints by hand, add argument resolvers, set the default container factory.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface QueueListenerConfigurer {

	/**
	 * @param registrar the registrar
	 */
	void configureQueueListeners(QueueListenerEndpointRegistrar registrar);

}
