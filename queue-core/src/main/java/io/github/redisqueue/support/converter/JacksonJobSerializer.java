package io.github.redisqueue.support.converter;

import java.lang.reflect.Type;
import java.util.Map;

import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link JobSerializer} on Jackson 3 JSON. Default typing is never enabled: the target type
 * always comes from the consumer.
 *
 * @since 0.1.0
 */
public class JacksonJobSerializer implements JobSerializer {

	private static final byte[] EMPTY = new byte[0];

	private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {
	};

	private final JsonMapper mapper;

	/** A serializer on a default {@link JsonMapper}. */
	public JacksonJobSerializer() {
		this(JsonMapper.builder().findAndAddModules().build());
	}

	/**
	 * A serializer on the given mapper (for example the application's).
	 * @param mapper the mapper
	 */
	public JacksonJobSerializer(JsonMapper mapper) {
		this.mapper = mapper;
	}

	@Override
	public byte[] serialize(Object payload) {
		if (payload instanceof byte[] bytes) {
			return bytes;
		}
		try {
			return this.mapper.writeValueAsBytes(payload);
		}
		catch (JacksonException ex) {
			throw new JobConversionException(
					"Cannot write payload of type " + payload.getClass().getName() + " as JSON: " + ex.getOriginalMessage(),
					ex);
		}
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> T deserialize(byte[] payload, Type type) {
		if (type == byte[].class) {
			return (T) payload;
		}
		JavaType javaType = this.mapper.constructType(type);
		try {
			return this.mapper.readValue(payload, javaType);
		}
		catch (JacksonException ex) {
			throw new JobConversionException(
					"Cannot read payload as " + javaType.toCanonical() + ": " + ex.getOriginalMessage(), ex);
		}
	}

	@Override
	public byte[] serializeHeaders(Map<String, String> headers) {
		return headers.isEmpty() ? EMPTY : serialize(headers);
	}

	@Override
	public Map<String, String> deserializeHeaders(byte[] headers) {
		if (headers.length == 0) {
			return Map.of();
		}
		try {
			return this.mapper.readValue(headers, HEADERS);
		}
		catch (JacksonException ex) {
			throw new JobConversionException("Cannot read job headers: " + ex.getOriginalMessage(), ex);
		}
	}

}
