package io.github.redisqueue.support.converter;

import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodParameter;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.converter.SmartMessageConverter;
import org.springframework.messaging.support.MessageBuilder;

/**
 * Reads a job's stored payload as the listener parameter's full generic type through the
 * {@link JobSerializer}. A payload that cannot be read raises a
 * {@link MessageConversionException}, which dead-letters the job.
 *
 * @since 0.1.0
 */
public class JobMessageConverter implements SmartMessageConverter {

	private final JobSerializer serializer;

	public JobMessageConverter(JobSerializer serializer) {
		this.serializer = serializer;
	}

	@Override
	public @Nullable Object fromMessage(Message<?> message, Class<?> targetClass) {
		return fromMessage(message, targetClass, null);
	}

	@Override
	public @Nullable Object fromMessage(Message<?> message, Class<?> targetClass, @Nullable Object conversionHint) {
		Type type = (conversionHint instanceof MethodParameter parameter) ? parameter.getNestedGenericParameterType()
				: targetClass;
		Object payload = message.getPayload();
		if (!(payload instanceof byte[] bytes)) {
			return null;
		}
		try {
			return this.serializer.deserialize(bytes, type);
		}
		catch (JobConversionException ex) {
			throw new MessageConversionException(message, ex.getMessage(), ex);
		}
	}

	@Override
	public Message<?> toMessage(Object payload, @Nullable MessageHeaders headers) {
		return toMessage(payload, headers, null);
	}

	@Override
	public Message<?> toMessage(Object payload, @Nullable MessageHeaders headers, @Nullable Object conversionHint) {
		MessageBuilder<byte[]> builder = MessageBuilder.withPayload(this.serializer.serialize(payload));
		if (headers != null) {
			builder.copyHeaders(headers);
		}
		return builder.build();
	}

}
