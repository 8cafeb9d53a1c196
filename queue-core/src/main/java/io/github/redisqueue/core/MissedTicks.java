package io.github.redisqueue.core;

import java.util.Locale;

/**
 * What a recurring job does with the ticks it missed (no instance could fire them on time: every
 * instance was down, Redis was unreachable, a tick came while nothing ran).
 *
 * @since 0.1.0
 */
public enum MissedTicks {

	/** One job for the latest missed tick, whatever the number of ticks missed. */
	FIRE_ONCE("fire-once"),

	/** No job for missed ticks: only ticks reached on time fire. */
	SKIP("skip");

	private final String value;

	MissedTicks(String value) {
		this.value = value;
	}

	/**
	 * The policy's name in properties and in scripts.
	 * @return {@code fire-once} or {@code skip}
	 */
	public String value() {
		return this.value;
	}

	/**
	 * The policy of a name, {@code fire-once} or {@code skip} (case ignored).
	 * @param value the name
	 * @return the policy
	 * @throws IllegalArgumentException for any other name
	 */
	public static MissedTicks of(String value) {
		String name = value.trim().toLowerCase(Locale.ROOT);
		for (MissedTicks policy : values()) {
			if (policy.value.equals(name) || policy.name().toLowerCase(Locale.ROOT).equals(name)) {
				return policy;
			}
		}
		throw new IllegalArgumentException("Unknown missed-tick policy '" + value + "': use fire-once or skip");
	}

}
