package io.github.redisqueue.support.resolver;

import io.github.redisqueue.support.JobMetadata;
import io.github.redisqueue.support.QueueHeaders;

import org.springframework.core.MethodParameter;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;

/**
 * Resolves a {@link JobMetadata} parameter.
 *
 * @since 0.1.0
 */
public class JobMetadataArgumentResolver implements HandlerMethodArgumentResolver {

	@Override
	public boolean supportsParameter(MethodParameter parameter) {
		return parameter.getParameterType() == JobMetadata.class;
	}

	@Override
	public Object resolveArgument(MethodParameter parameter, Message<?> message) {
		return message.getHeaders().get(QueueHeaders.METADATA, JobMetadata.class);
	}

}
