package io.github.redisqueue.dashboard;

import java.util.ArrayList;
import java.util.List;

import io.github.redisqueue.core.JobHistory;
import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.RateLimit;
import io.github.redisqueue.core.RateLimitStatus;
import io.github.redisqueue.core.ScheduleFiring;
import io.github.redisqueue.schedule.RecurringJobDefinition;
import io.github.redisqueue.schedule.RecurringJobScheduler;
import io.github.redisqueue.dashboard.DashboardViews.BatchRow;
import io.github.redisqueue.dashboard.DashboardViews.JobDetail;
import io.github.redisqueue.dashboard.DashboardViews.Settings;
import org.jspecify.annotations.Nullable;

import static io.github.redisqueue.dashboard.DashboardViews.millis;

/**
 * The JSON shapes of the dashboard's batches, schedules, rate limits and job search pages, and of
 * its bulk actions. Times are epoch milliseconds by the Redis server clock, {@code null} when
 * unset.
 */
final class DashboardPageViews {

	private DashboardPageViews() {
	}

	/** A queue's open batches (one page) and its recently finished ones. */
	record BatchesPage(Settings settings, String queue, int offset, int count, long openTotal, List<BatchRow> open,
			List<BatchRow> finished) {
	}

	/** The recurring jobs of this application, with their ticks. */
	record SchedulesPage(Settings settings, boolean enabled, List<ScheduleRow> schedules) {
	}

	/** A recurring job: its definition and where it stands in Redis. */
	record ScheduleRow(String name, String queue, String cron, String zone, String missed, long graceMillis,
			@Nullable Long lastTick, @Nullable Long nextTick, long serverTime) {

		static ScheduleRow of(RecurringJobDefinition definition, ScheduleFiring.State state) {
			return new ScheduleRow(definition.name(), definition.queue(), definition.cron().toString(),
					definition.zone().getId(), definition.missed().value(), definition.grace().toMillis(),
					millis(state.lastTick()), millis(RecurringJobScheduler.nextTick(definition, state.serverTime())),
					state.serverTime().toEpochMilli());
		}

	}

	/** Every queue's rate limit. */
	record RateLimitsPage(Settings settings, List<RateLimitRow> queues, boolean cut) {
	}

	/** A queue against its rate limit. */
	record RateLimitRow(String queue, @Nullable String limit, int permits, long windowMillis, int handedOut,
			@Nullable Long nextHandOut, long limitedCalls, long heldBack, long serverTime) {

		static RateLimitRow of(RateLimitStatus status) {
			RateLimit limit = status.limit();
			return new RateLimitRow(status.queue(), (limit != null) ? limit.toString() : null,
					(limit != null) ? limit.permits() : 0, (limit != null) ? limit.window().toMillis() : 0,
					status.handedOut(), millis(status.nextHandOut()), status.limitedCalls(), status.heldBack(),
					status.serverTime().toEpochMilli());
		}

	}

	/** What a search found: the job with its history, or nothing. */
	record FindResult(Settings settings, String queue, String by, String key, @Nullable String id,
			@Nullable JobHistoryView job) {
	}

	/** A job with the events its record tells, oldest first. */
	record JobHistoryView(JobDetail detail, int losses, @Nullable String uniqueKey, @Nullable String batch,
			@Nullable String group, List<Event> events) {

		static JobHistoryView of(Settings settings, JobHistory history) {
			JobInfo job = history.job();
			List<Event> events = new ArrayList<>();
			events.add(new Event(millis(job.enqueuedAt()), "enqueued",
					(job.dueAt() != null) ? "delayed until its due time" : "ready"));
			if (job.attempts() > 0) {
				events.add(new Event(null, "failed",
						job.attempts() + " attempt(s) ended in a failure" + ((job.lastError() != null)
								? "; last error: " + firstLine(job.lastError()) : "")));
			}
			if (history.losses() > 0) {
				events.add(new Event(null, "lost", history.losses()
						+ " time(s) a worker lost it (lease ran out or worker's heartbeat ran out), taken back"));
			}
			if (history.readyAt() != null) {
				events.add(new Event(millis(history.readyAt()), "ready again",
						"last went back to ready (a retry falling due, a loss or a run now)"));
			}
			if (job.worker() != null) {
				events.add(new Event(null, "started", "by worker " + job.worker()
						+ ((job.leaseUntil() != null) ? ", lease until the time shown" : "")));
			}
			switch (job.state()) {
				case ACTIVE -> events.add(new Event(millis(job.leaseUntil()), "running", "lease deadline"));
				case COMPLETED -> events.add(new Event(millis(job.finishedAt()), "completed", ""));
				case DEAD -> events.add(new Event(millis(job.finishedAt()), "dead",
						(job.lastError() != null) ? firstLine(job.lastError()) : ""));
				case DELAYED -> events.add(new Event(millis(job.dueAt()), "due", "runs at its due time"));
				case WAITING -> events.add(new Event(null, "waiting", "for a place in its batch or group"));
				default -> {
				}
			}
			return new JobHistoryView(JobDetail.of(settings, job), history.losses(), history.uniqueKey(),
					history.batch(), history.group(), events);
		}

		private static String firstLine(String text) {
			int end = text.indexOf('\n');
			String line = (end >= 0) ? text.substring(0, end) : text;
			return (line.length() > DashboardViews.PREVIEW_CHARS) ? line.substring(0, DashboardViews.PREVIEW_CHARS)
					: line;
		}

	}

	/** One line of a job's history: when (if the record keeps it), what, and detail. */
	record Event(@Nullable Long at, String what, String detail) {
	}

	/** The ids a bulk action acts on, and (for a delete) the state they are expected in. */
	record BulkRequest(@Nullable List<String> ids, @Nullable String state) {
	}

	/** What a bulk action did, per id. */
	record BulkResult(String queue, String action, int requested, int changed, List<String> unchanged,
			List<String> refused, List<BulkFailure> failed, String message) {
	}

	/** An id a bulk action failed on (Redis timed out, a script failed), with the error. */
	record BulkFailure(String id, String error) {

		@Override
		public String toString() {
			return this.id + " (" + this.error + ")";
		}

	}

}
