package io.github.redisqueue.core;

import java.util.regex.Pattern;

/**
 * Rules for queue names and key prefixes. A name is 1 to 100 characters of letters, digits,
 * {@code .}, {@code _} and {@code -}, starting with a letter or digit, so it can never break out
 * of its Redis hash tag.
 *
 * @since 0.1.0
 */
public final class QueueNames {

	/** Longest queue name. */
	public static final int MAX_LENGTH = 100;

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

	private QueueNames() {
	}

	/**
	 * Check a queue name.
	 * @param queue the name
	 * @return the name
	 * @throws IllegalArgumentException naming the value and the rule it breaks
	 */
	public static String validate(String queue) {
		return check("Queue name", queue);
	}

	/**
	 * Check a key prefix; the same rules as queue names.
	 * @param prefix the prefix
	 * @return the prefix
	 */
	public static String validatePrefix(String prefix) {
		return check("Key prefix", prefix);
	}

	private static String check(String what, String value) {
		if (value == null || value.isEmpty() || value.length() > MAX_LENGTH || !NAME.matcher(value).matches()) {
			throw new IllegalArgumentException(what + " '" + value + "' is invalid: it must have 1 to " + MAX_LENGTH
					+ " characters, letters, digits, '.', '_' or '-', and start with a letter or digit");
		}
		return value;
	}

}
