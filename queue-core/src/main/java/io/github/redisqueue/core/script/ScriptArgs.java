package io.github.redisqueue.core.script;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobRef;
import org.jspecify.annotations.Nullable;

import static io.github.redisqueue.core.script.ScriptReplies.EMPTY;

/**
 * Encoders of the scripts' arguments: numbers and text as the bytes a script reads, the option
 * values of an enqueue, the id and token pairs that name held jobs. The replies are decoded by
 * {@link ScriptReplies}.
 */
public final class ScriptArgs {

	private static final byte[] RELEASE_STARTED = encodeAscii("started");

	private static final byte[] RELEASE_UNSTARTED = encodeAscii("unstarted");

	private ScriptArgs() {
	}

	/** A number as the decimal ASCII text a script reads with {@code tonumber}. */
	public static byte[] encodeNumber(long value) {
		if (value < 0) {
			return encodeAscii(Long.toString(value));
		}
		// the digits written straight into the array (no String and its copy: a few per script call)
		int length = decimalDigits(value);
		byte[] digits = new byte[length];
		long rest = value;
		for (int i = length - 1; i >= 0; i--) {
			digits[i] = (byte) ('0' + rest % 10);
			rest /= 10;
		}
		return digits;
	}

	/** How many decimal digits a value of 0 or more has. */
	static int decimalDigits(long value) {
		int digits = 1;
		for (long rest = value / 10; rest > 0; rest /= 10) {
			digits++;
		}
		return digits;
	}

	public static byte[] encodeAscii(String value) {
		return value.getBytes(StandardCharsets.US_ASCII);
	}

	public static byte[] encodeUtf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * The eleven values {@code enqueue.lua} takes for all the jobs of a call after their headers: "priority,
	 * delay ms, run-at ms (0 = none), uniqueness key ('' = none), uniqueness window ms after
	 * completion, expire-after ms (0 = none), max attempts, idempotency key ('' = none),
	 * idempotency window ms, group key ('' = none), group concurrency".
	 */
	public static byte[][] jobOptionArgs(JobOptions options, int defaultMaxAttempts, int groupConcurrency) {
		int maxAttempts = (options.getMaxAttempts() != null) ? options.getMaxAttempts() : defaultMaxAttempts;
		return new byte[][] { encodeNumber(options.getPriority()), encodeNumber(millis(options.getDelay())),
				encodeNumber((options.getRunAt() != null) ? options.getRunAt().toEpochMilli() : 0),
				(options.getUniqueKey() != null) ? encodeUtf8(options.getUniqueKey()) : EMPTY,
				encodeNumber(options.getUniqueFor().toMillis()), encodeNumber(millis(options.getExpireAfter())),
				encodeNumber(maxAttempts),
				// the idempotency key itself is the first key after the queue's own
				(options.getIdempotencyKey() != null) ? encodeNumber(QueueKeys.SCRIPT_KEYS + 1) : EMPTY,
				encodeNumber(options.getIdempotencyWindow().toMillis()),
				(options.getGroup() != null) ? encodeUtf8(options.getGroup()) : EMPTY, encodeNumber(groupConcurrency) };
	}

	/**
	 * The arguments {@code enqueue.lua} takes for one call: "count, headers", the
	 * {@link #jobOptionArgs option values} shared by the call's jobs, then one payload per job.
	 */
	public static List<byte[]> enqueueArgs(byte[] headers, byte[][] options, List<byte[]> payloads) {
		List<byte[]> args = new ArrayList<>(2 + options.length + payloads.size());
		args.add(encodeNumber(payloads.size()));
		args.add(headers);
		Collections.addAll(args, options);
		args.addAll(payloads);
		return args;
	}

	/** One leading argument, then "pairs of id and token" ({@code complete}, {@code extend}, {@code release}). */
	public static List<byte[]> refArgs(byte[] first, Collection<JobRef> jobs) {
		List<byte[]> args = new ArrayList<>(1 + jobs.size() * 2);
		args.add(first);
		addRefs(args, jobs);
		return args;
	}

	/**
	 * {@code release}: "'unstarted' then pairs of id and token" (jobs that never reached a handler,
	 * given back with nothing counted) or "'started' then pairs of id and token" (jobs whose handler
	 * ran but gave no outcome).
	 */
	public static List<byte[]> releaseArgs(boolean started, Collection<JobRef> jobs) {
		return refArgs(started ? RELEASE_STARTED : RELEASE_UNSTARTED, jobs);
	}

	/**
	 * {@code complete}: the retention, the number of started jobs, their "pairs of id and token",
	 * then the "pairs of id and token to acknowledge".
	 */
	public static List<byte[]> completeArgs(byte[] retention, Collection<JobRef> started, Collection<JobRef> jobs) {
		List<byte[]> args = new ArrayList<>(2 + (started.size() + jobs.size()) * 2);
		args.add(retention);
		args.add(encodeNumber(started.size()));
		addRefs(args, started);
		addRefs(args, jobs);
		return args;
	}

	public static void addRefs(List<byte[]> args, Collection<JobRef> jobs) {
		for (JobRef job : jobs) {
			args.add(encodeUtf8(job.id()));
			args.add(encodeNumber(job.token()));
		}
	}

	private static long millis(@Nullable Duration duration) {
		return (duration != null) ? duration.toMillis() : 0;
	}

}
