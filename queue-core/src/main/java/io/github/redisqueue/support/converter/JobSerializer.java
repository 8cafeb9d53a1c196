package io.github.redisqueue.support.converter;

import java.lang.reflect.Type;
import java.util.Map;

/**
 * Turns payloads and headers into the bytes stored in Redis and back. The consumer names the
 * type to read; type names are never read from the payload.
 *
 * @since 0.1.0
 */
public interface JobSerializer {

	/**
	 * Serialize a payload.
	 * @param payload the payload
	 * @return its bytes
	 * @throws JobConversionException when the payload cannot be written
	 */
	byte[] serialize(Object payload);

	/**
	 * Read a payload as the consumer's type.
	 * @param payload the stored bytes
	 * @param type the type the consumer wants
	 * @param <T> that type
	 * @return the payload
	 * @throws JobConversionException when the bytes cannot be read as that type
	 */
	<T> T deserialize(byte[] payload, Type type);

	/**
	 * Serialize headers; an empty map gives an empty array.
	 * @param headers the headers
	 * @return their bytes
	 */
	byte[] serializeHeaders(Map<String, String> headers);

	/**
	 * Read headers written by {@link #serializeHeaders(Map)}; empty input gives an empty map.
	 * @param headers the stored bytes
	 * @return the headers
	 */
	Map<String, String> deserializeHeaders(byte[] headers);

}
