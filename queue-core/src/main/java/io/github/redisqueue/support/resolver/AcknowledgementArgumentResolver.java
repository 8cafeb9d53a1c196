package io.github.redisqueue.support.resolver;

import io.github.redisqueue.listener.Acknowledgement;
import io.github.redisqueue.support.QueueHeaders;

import org.springframework.core.MethodParameter;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;

/**
 * Resolves an {@link Acknowledgement} parameter, in every acknowledgement mode: in manual mode
 * the listener settles its job with it; in the other modes the container settles the job, and
 * the handle serves to extend the lease of a long-running job.
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
