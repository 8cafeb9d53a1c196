package io.github.redisqueue.core;

import java.util.Collection;

import org.jspecify.annotations.Nullable;

/**
 * The rule for job ids a caller passes back (to look a job up, act on it or acknowledge it): the
 * canonical decimal the engine handed out, digits only, no sign, no blank and no leading zero.
 * Any other text could name a job's entries under another spelling ({@code "05"} is job 5's
 * padded delayed entry) without naming its record, so it is refused before anything is sent to
 * Redis.
 *
 * @since 0.1.0
 */
public final class JobIds {

	/** Most digits of a job id. */
	public static final int MAX_DIGITS = 18;

	private JobIds() {
	}

	/**
	 * Check a job id.
	 * @param id the id
	 * @return the id
	 * @throws IllegalArgumentException naming the value and the rule it breaks
	 */
	public static String validate(@Nullable String id) {
		if (!isValid(id)) {
			throw new IllegalArgumentException("Job id '" + id + "' is invalid: it must be a decimal number of 1 to "
					+ MAX_DIGITS + " digits, without sign, spaces or leading zeros, as the queue handed it out");
		}
		return id;
	}

	/**
	 * Whether a text is a job id by {@link #validate}'s rule.
	 * @param id the text
	 * @return true when it is
	 */
	public static boolean isValid(@Nullable String id) {
		if (id == null || id.isEmpty() || id.length() > MAX_DIGITS || (id.charAt(0) == '0' && id.length() > 1)) {
			return false;
		}
		for (int i = 0; i < id.length(); i++) {
			char c = id.charAt(i);
			if (c < '0' || c > '9') {
				return false;
			}
		}
		return true;
	}

	/** Check the ids of job references (see {@link #validate}). */
	public static void validateRefs(Collection<JobRef> jobs) {
		jobs.forEach((job) -> validate(job.id()));
	}

}
