package io.github.redisqueue.config;

import io.github.redisqueue.listener.QueueListenerContainer;

import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;

/**
 * Creates the container of an endpoint.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface QueueListenerContainerFactory {

	/**
	 * @param endpoint the endpoint
	 * @param methodFactory builds its handler method
	 * @return a container, not started
	 */
	QueueListenerContainer createContainer(QueueListenerEndpoint endpoint, MessageHandlerMethodFactory methodFactory);

}
