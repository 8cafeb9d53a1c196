package io.github.redisqueue.support;

import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * What the completion job of a batch tells its handler: which batch ended, how, and how many of
 * its sub-jobs met each end. A listener method receives it by declaring a parameter of this type;
 * the sub-jobs' results are read by batch id through the queue operations.
 *
 * <pre class="code">
 * &#64;QueueListener("resize-done")
 * void done(ResizeRequest request, BatchCompletion batch) {
 *     log.info("Request {} ended: {} of {} pieces done", request.id(), batch.completed(), batch.total());
 * }
 * </pre>
 *
 * @param queue the queue of the batch's sub-jobs
 * @param batchId the batch id
 * @param cancelled whether the batch was cancelled
 * @param total how many sub-jobs the batch had
 * @param completed how many completed
 * @param dead how many were dead-lettered
 * @param cancelledJobs how many were removed by the cancellation before they ran
 * @since 0.1.0
 */
public record BatchCompletion(String queue, String batchId, boolean cancelled, long total, long completed, long dead,
		long cancelledJobs) {

	/** Value of {@link QueueHeaders#BATCH_STATE} for a batch whose sub-jobs all ran. */
	public static final String COMPLETED = "completed";

	/** Value of {@link QueueHeaders#BATCH_STATE} for a cancelled batch. */
	public static final String CANCELLED = "cancelled";

	/** Whether every sub-job completed (none dead, none cancelled). */
	public boolean succeeded() {
		return !this.cancelled && this.completed == this.total;
	}

	/**
	 * Read from the stored headers of a completion job.
	 * @param headers the job's headers (or message headers)
	 * @return the completion, or {@code null} when the headers carry no batch
	 */
	public static @Nullable BatchCompletion from(Function<String, @Nullable Object> headers) {
		Object id = headers.apply(QueueHeaders.BATCH_ID);
		Object queue = headers.apply(QueueHeaders.BATCH_QUEUE);
		if (id == null || queue == null) {
			return null;
		}
		return new BatchCompletion(queue.toString(), id.toString(),
				CANCELLED.equals(String.valueOf(headers.apply(QueueHeaders.BATCH_STATE))),
				number(headers.apply(QueueHeaders.BATCH_TOTAL)), number(headers.apply(QueueHeaders.BATCH_COMPLETED)),
				number(headers.apply(QueueHeaders.BATCH_DEAD)), number(headers.apply(QueueHeaders.BATCH_CANCELLED)));
	}

	/**
	 * The stored headers of a completion job for this batch.
	 * @return header name to value
	 */
	public Map<String, String> toHeaders() {
		return Map.of(QueueHeaders.BATCH_ID, this.batchId, QueueHeaders.BATCH_QUEUE, this.queue,
				QueueHeaders.BATCH_STATE, this.cancelled ? CANCELLED : COMPLETED, QueueHeaders.BATCH_TOTAL,
				Long.toString(this.total), QueueHeaders.BATCH_COMPLETED, Long.toString(this.completed),
				QueueHeaders.BATCH_DEAD, Long.toString(this.dead), QueueHeaders.BATCH_CANCELLED,
				Long.toString(this.cancelledJobs));
	}

	private static long number(@Nullable Object value) {
		if (value == null) {
			return 0;
		}
		try {
			return Long.parseLong(value.toString());
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

}
