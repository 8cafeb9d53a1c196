package io.github.redisqueue.support.resolver;

import io.github.redisqueue.listener.Acknowledgement;
import io.github.redisqueue.support.QueueHeaders;

import org.springframework.core.MethodParameter;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;

/**
 * Resolves an {@link Acknowledgement} parameter, for listeners in manual acknowledgement mode.
 *
 * @since 0.1.0
 */
public class AcknowledgementArgumentResolver implements HandlerMethodArgumentResolver {

	@Override
	public boolean supportsParameter(MethodParameter parameter) {
		return Acknowledgement.class.isAssignableFrom(parameter.getParameterType());
	}

	@Override
	public Object resolveArgument(MethodParameter parameter, Message<?> message) {
		return message.getHeaders().get(QueueHeaders.ACKNOWLEDGEMENT, Acknowledgement.class);
	}

}
