package io.github.redisqueue.samples.benchmark;

/**
 * The job payload: about 100 bytes of JSON, such as
 * {@code {"id":123,"user":"u123","action":"send-email","sentNanos":0}}.
 *
 * @param id the job number in its phase
 * @param user a user name
 * @param action what to do
 * @param sentNanos {@link System#nanoTime()} at enqueue, for the latency phase; 0 otherwise
 */
public record BenchPayload(long id, String user, String action, long sentNanos) {

	static BenchPayload of(long id, long sentNanos) {
		return new BenchPayload(id, "u" + id, "send-email", sentNanos);
	}

}
