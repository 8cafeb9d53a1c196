package io.github.redisqueue.samples.benchmark;

/**
 * The job payload: about 60 bytes of JSON, such as
 * {@code {"id":123,"user":"u123","action":"send-email","sentNanos":0,"pad":""}}, or padded to a
 * given size ({@link #padTo}).
 *
 * @param id the job number in its phase
 * @param user a user name
 * @param action what to do
 * @param sentNanos {@link System#nanoTime()} at enqueue, for the latency phase; 0 otherwise
 * @param pad filler that brings the payload to the size asked for with {@code --payload-bytes}
 */
public record BenchPayload(long id, String user, String action, long sentNanos, String pad) {

	// the JSON of a payload with an empty pad, for a six-digit id and a 15-digit sentNanos
	private static final int BASE_BYTES = "{\"id\":123456,\"user\":\"u123456\",\"action\":\"send-email\",\"sentNanos\":123456789012345,\"pad\":\"\"}"
		.length();

	private static volatile String padding = "";

	static BenchPayload of(long id, long sentNanos) {
		return new BenchPayload(id, "u" + id, "send-email", sentNanos, padding);
	}

	/**
	 * Pads the payloads made from now on to about {@code bytes} bytes of JSON (exact for a six-digit id
	 * and a 15-digit sentNanos); 0 or less removes the padding.
	 */
	static void padTo(int bytes) {
		padding = "x".repeat(Math.max(0, bytes - BASE_BYTES));
	}

}
