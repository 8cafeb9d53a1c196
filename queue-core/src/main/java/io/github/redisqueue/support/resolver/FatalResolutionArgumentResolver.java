package io.github.redisqueue.support.resolver;

import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodParameter;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;

/**
 * Wraps an argument resolver so that any failure to resolve an argument (a missing header, a
 * payload that cannot be read) surfaces as a {@link MethodArgumentResolutionException}: such a
 * job can never succeed, so it is dead-lettered at once instead of retried.
 *
 * @since 0.1.0
 */
public class FatalResolutionArgumentResolver implements HandlerMethodArgumentResolver {

	private final HandlerMethodArgumentResolver delegate;

	public FatalResolutionArgumentResolver(HandlerMethodArgumentResolver delegate) {
		this.delegate = delegate;
	}

	@Override
	public boolean supportsParameter(MethodParameter parameter) {
		return this.delegate.supportsParameter(parameter);
	}

	@Override
	public @Nullable Object resolveArgument(MethodParameter parameter, Message<?> message) throws Exception {
		try {
			return this.delegate.resolveArgument(parameter, message);
		}
		catch (MethodArgumentResolutionException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new MethodArgumentResolutionException(message, parameter, ex.getMessage(), ex);
		}
	}

}
