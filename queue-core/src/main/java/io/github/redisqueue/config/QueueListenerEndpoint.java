package io.github.redisqueue.config;

import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.JobListener;

import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;

/**
 * One listener to run: its id, its queue, the settings it names explicitly, and how to build
 * its {@link JobListener}.
 *
 * @since 0.1.0
 */
public interface QueueListenerEndpoint {

	/** Container id, unique in the application. */
	String getId();

	/** The queue to consume. */
	String getQueue();

	/**
	 * Apply the settings this endpoint names explicitly; the others stay as given.
	 * @param options the factory's options for the queue
	 * @return the options for this endpoint's container
	 */
	ContainerOptions customize(ContainerOptions options);

	/**
	 * Build the listener.
	 * @param methodFactory the factory of invocable handler methods
	 * @return the listener
	 */
	JobListener createListener(MessageHandlerMethodFactory methodFactory);

}
