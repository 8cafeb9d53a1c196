package io.github.redisqueue.dashboard;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.QueueCounts;
import io.github.redisqueue.core.QueueHistory;
import io.github.redisqueue.core.WorkerInfo;
import org.jspecify.annotations.Nullable;

/**
 * The JSON shapes of the dashboard's API. Times are epoch milliseconds (Redis server clock, as
 * the engine stores them), {@code null} when unset.
 */
final class DashboardViews {

	/** Longest payload text a job's detail carries; the rest is cut off and said so. */
	static final int MAX_PAYLOAD_CHARS = 256 * 1024;

	/** Longest payload preview and error line in a page of jobs. */
	static final int PREVIEW_CHARS = 160;

	private DashboardViews() {
	}

	/** What every page needs to know about the dashboard and its user. */
	record Settings(String user, boolean readOnly, long refreshMillis, @Nullable Csrf csrf) {
	}

	/** The header and value a page sends with each action when Spring Security asks for a CSRF token. */
	record Csrf(String headerName, String token) {
	}

	/** The overview: every queue, the live workers, the settings. */
	record Overview(Settings settings, List<QueueRow> queues, List<WorkerRow> workers, long serverTime) {
	}

	/**
	 * One queue's counts: the work still to run (ready, delayed, waiting at a batch's cap or a
	 * group's cap, in flight), the dead letters, the completed jobs still retained and the running
	 * totals (completed; failed: failed attempts and dead-lettered jobs) since the queue was
	 * created, with its chart of the last 24 hours.
	 */
	record QueueRow(String name, long ready, long delayed, long inFlight, long dead, long completed, boolean paused,
			@Nullable Long headAgeMillis, double throughput, long waiting, long batchWaiting, long groupWaiting,
			long completedTotal, long failedTotal, long openBatches, @Nullable Chart chart) {

		static QueueRow of(QueueCounts counts, @Nullable Chart chart) {
			Duration age = counts.headAge();
			long batchWaiting = counts.total("batchWaiting");
			long groupWaiting = Math.max(0, counts.total("groupWaiting"));
			return new QueueRow(counts.queue(), counts.ready(), counts.delayed(), counts.inFlight(), counts.dead(),
					counts.completed(), counts.paused(), (age != null) ? age.toMillis() : null, counts.throughput(),
					batchWaiting + groupWaiting, batchWaiting, groupWaiting, counts.total("completed"),
					counts.total("failed") + counts.total("dead"), counts.openBatches(), chart);
		}

	}

	/**
	 * Jobs completed and failed per step over the last 24 hours, oldest first (the last step holds
	 * the current minute), from the queue's history in Redis.
	 */
	record Chart(long start, long stepMillis, long serverTime, long[] completed, long[] failed) {

		/** Steps a chart may have, in minutes: divisors of a day. */
		static final Set<Integer> STEPS = Set.of(1, 2, 5, 10, 15, 30, 60);

		static Chart of(QueueHistory history, int stepMinutes) {
			if (!STEPS.contains(stepMinutes)) {
				throw new IllegalArgumentException("Unknown step " + stepMinutes + ": use one of 1, 2, 5, 10, 15, 30, 60");
			}
			int points = QueueHistory.MINUTES / stepMinutes;
			long[] completed = new long[points];
			long[] failed = new long[points];
			for (int i = 0; i < QueueHistory.MINUTES; i++) {
				completed[i / stepMinutes] += history.completed().get(i);
				failed[i / stepMinutes] += history.failed().get(i);
			}
			return new Chart(history.start().toEpochMilli(), QueueHistory.STEP.toMillis() * stepMinutes,
					history.serverTime().toEpochMilli(), completed, failed);
		}

	}

	/** A live worker. */
	record WorkerRow(String id, String host, List<String> queues, int runningJobs, @Nullable Long startedAt,
			@Nullable Long lastSeen) {

		static WorkerRow of(WorkerInfo worker) {
			return new WorkerRow(worker.id(), worker.host(), worker.queues(), worker.runningJobs(),
					millis(worker.startedAt()), millis(worker.lastSeen()));
		}

	}

	/** One page of a queue's jobs in one state, with the queue's counts and open batches. */
	record QueuePage(Settings settings, QueueRow queue, String state, String order, int offset, int count,
			long total, List<JobRow> jobs, List<BatchRow> batches) {
	}

	/** A job in a page: what a table row shows (progress: as stored, cut like the preview). */
	record JobRow(String id, String state, int priority, int attempts, int maxAttempts, @Nullable Long enqueuedAt,
			@Nullable Long dueAt, @Nullable Long leaseUntil, @Nullable String worker, @Nullable String error,
			@Nullable Long finishedAt, String preview, @Nullable String progress) {

		static JobRow of(JobInfo job) {
			String progress = job.progress();
			return new JobRow(job.id(), job.state().name(), job.priority(), job.attempts(), job.maxAttempts(),
					millis(job.enqueuedAt()), millis(job.dueAt()), millis(job.leaseUntil()), job.worker(),
					firstLine(job.lastError()), millis(job.finishedAt()), cut(text(job.payload()), PREVIEW_CHARS),
					(progress != null) ? cut(progress, PREVIEW_CHARS) : null);
		}

	}

	/** A job in detail (progress: as stored, at most 4 KB). */
	record JobDetail(Settings settings, String queue, String id, String state, int priority, int attempts,
			int maxAttempts, @Nullable Long enqueuedAt, @Nullable Long dueAt, @Nullable Long expireAt,
			@Nullable Long leaseUntil, @Nullable String worker, @Nullable String lastError, @Nullable Long finishedAt,
			Map<String, String> headers, String payload, int payloadBytes, boolean payloadCut,
			@Nullable String progress) {

		static JobDetail of(Settings settings, JobInfo job) {
			String payload = text(job.payload());
			return new JobDetail(settings, job.queue(), job.id(), job.state().name(), job.priority(), job.attempts(),
					job.maxAttempts(), millis(job.enqueuedAt()), millis(job.dueAt()), millis(job.expireAt()),
					millis(job.leaseUntil()), job.worker(), job.lastError(), millis(job.finishedAt()), job.headers(),
					cut(payload, MAX_PAYLOAD_CHARS), job.payload().length, payload.length() > MAX_PAYLOAD_CHARS,
					job.progress());
		}

	}

	/** An open batch and its progress. */
	record BatchRow(String id, String state, long total, long waiting, long active, long completed, long dead,
			long cancelled, int maxConcurrency, @Nullable Long createdAt) {

		static BatchRow of(BatchStatus batch) {
			return new BatchRow(batch.id(), batch.state().name(), batch.total(), batch.waiting(), batch.active(),
					batch.completed(), batch.dead(), batch.cancelled(), batch.maxConcurrency(),
					millis(batch.createdAt()));
		}

	}

	/** What an action did. */
	record ActionResult(String queue, String action, long count, String message) {
	}

	/** Why a request was refused. */
	record Problem(int status, String error) {
	}

	/** A duration as an operator reads it: 7d, 1h 30min, 45s. */
	static String duration(Duration duration) {
		long seconds = duration.toSeconds();
		if (duration.toMillis() % 1000 != 0) {
			return duration.toMillis() + "ms";
		}
		if (seconds % 86_400 == 0) {
			return (seconds / 86_400) + "d";
		}
		if (seconds % 3600 == 0) {
			return (seconds / 3600) + "h";
		}
		if (seconds % 60 == 0) {
			return (seconds >= 3600) ? (seconds / 3600) + "h " + (seconds % 3600 / 60) + "min" : (seconds / 60) + "min";
		}
		return seconds + "s";
	}

	static @Nullable Long millis(@Nullable Instant instant) {
		return (instant != null) ? instant.toEpochMilli() : null;
	}

	private static String text(byte[] bytes) {
		return new String(bytes, StandardCharsets.UTF_8);
	}

	private static @Nullable String firstLine(@Nullable String text) {
		if (text == null || text.isEmpty()) {
			return null;
		}
		int end = text.indexOf('\n');
		return cut((end >= 0) ? text.substring(0, end) : text, PREVIEW_CHARS);
	}

	private static String cut(String text, int max) {
		return (text.length() <= max) ? text : text.substring(0, max);
	}

}
