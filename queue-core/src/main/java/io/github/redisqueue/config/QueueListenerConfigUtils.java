package io.github.redisqueue.config;

/**
 * Bean names shared by the annotation support and the auto-configuration.
 *
 * @since 0.1.0
 */
public final class QueueListenerConfigUtils {

	/** The {@code @QueueListener} bean post-processor. */
	public static final String ANNOTATION_PROCESSOR_BEAN_NAME = "io.github.redisqueue.config.internalQueueListenerAnnotationProcessor";

	/** The endpoint registry that owns the containers. */
	public static final String ENDPOINT_REGISTRY_BEAN_NAME = "io.github.redisqueue.config.internalQueueListenerEndpointRegistry";

	/** The default container factory. */
	public static final String DEFAULT_CONTAINER_FACTORY_BEAN_NAME = "queueListenerContainerFactory";

	private QueueListenerConfigUtils() {
	}

}
