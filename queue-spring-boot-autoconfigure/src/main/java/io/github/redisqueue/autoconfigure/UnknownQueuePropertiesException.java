package io.github.redisqueue.autoconfigure;

import java.util.List;

/**
 * Thrown at startup, with {@code queue.fail-on-unknown-properties=true}, when {@code queue.*}
 * keys of the environment bind to nothing; the message lists each of them with the property
 * source it came from and the nearest valid key.
 *
 * @since 0.1.0
 */
public class UnknownQueuePropertiesException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final List<String> properties;

	UnknownQueuePropertiesException(List<String> properties) {
		super(properties.size() + ((properties.size() == 1) ? " queue property binds" : " queue properties bind")
				+ " to nothing (" + UnknownQueuePropertiesCheck.FAIL_PROPERTY + " is true):"
				+ System.lineSeparator() + "    " + String.join(System.lineSeparator() + "    ", properties));
		this.properties = List.copyOf(properties);
	}

	/**
	 * One line per unknown key: the key, where it came from and the nearest valid key.
	 * @return the lines, in the order of the property sources
	 */
	public List<String> getProperties() {
		return this.properties;
	}

}
