package io.github.redisqueue.support.resolver;

import io.github.redisqueue.support.BatchCompletion;

import org.springframework.core.MethodParameter;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;

/**
 * Resolves a {@link BatchCompletion} parameter from the headers of a batch's completion job. A
 * job that is no completion job cannot be handled by such a method: the resolution fails with a
 * message that says so, and the listener container dead-letters the job.
 *
 * @since 0.1.0
 */
public class BatchCompletionArgumentResolver implements HandlerMethodArgumentResolver {

	@Override
	public boolean supportsParameter(MethodParameter parameter) {
		return parameter.getParameterType() == BatchCompletion.class;
	}

	@Override
	public Object resolveArgument(MethodParameter parameter, Message<?> message) {
		MessageHeaders headers = message.getHeaders();
		BatchCompletion completion = BatchCompletion.from(headers::get);
		if (completion == null) {
			throw new IllegalStateException("Parameter " + parameter.getParameterIndex() + " of "
					+ parameter.getExecutable().toGenericString()
					+ " takes a BatchCompletion, but the job is not the completion job of a batch");
		}
		return completion;
	}

}
