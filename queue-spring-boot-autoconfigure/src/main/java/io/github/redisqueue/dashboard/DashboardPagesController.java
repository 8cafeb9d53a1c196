package io.github.redisqueue.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;

import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.core.JobIds;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueBatchException;
import io.github.redisqueue.core.QueueNames;
import io.github.redisqueue.dashboard.DashboardPageViews.BatchesPage;
import io.github.redisqueue.dashboard.DashboardPageViews.BulkFailure;
import io.github.redisqueue.dashboard.DashboardPageViews.BulkRequest;
import io.github.redisqueue.dashboard.DashboardPageViews.BulkResult;
import io.github.redisqueue.dashboard.DashboardPageViews.FindResult;
import io.github.redisqueue.dashboard.DashboardPageViews.JobHistoryView;
import io.github.redisqueue.dashboard.DashboardPageViews.RateLimitRow;
import io.github.redisqueue.dashboard.DashboardPageViews.RateLimitsPage;
import io.github.redisqueue.dashboard.DashboardPageViews.ScheduleRow;
import io.github.redisqueue.dashboard.DashboardPageViews.SchedulesPage;
import io.github.redisqueue.dashboard.DashboardViews.ActionResult;
import io.github.redisqueue.dashboard.DashboardViews.BatchRow;
import io.github.redisqueue.dashboard.DashboardViews.Problem;
import io.github.redisqueue.dashboard.DashboardViews.Settings;
import io.github.redisqueue.schedule.RecurringJobDefinition;
import io.github.redisqueue.schedule.RecurringJobScheduler;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard's pages beyond the overview, a queue and a job, under the same path, access rules
 * and CSRF protection (the interceptor of {@link QueueDashboardController} covers every path
 * below {@code queue.dashboard.path}). Reads: a queue's batches
 * ({@code GET {path}/api/batches/{queue}?offset=0}), the recurring jobs
 * ({@code GET {path}/api/schedules}), every queue's rate limit ({@code GET {path}/api/rate-limits}),
 * a job found by id, uniqueness key or idempotency key with its history
 * ({@code GET {path}/api/find?queue=q&by=unique&key=k}). Actions, each a POST logged with the
 * queue, the ids and the user: {@code batches/{id}/cancel} on a queue, and
 * {@code bulk/retry}, {@code bulk/delete}, {@code bulk/promote} on a queue with a
 * body {@code {"ids": [...]}} of at most {@value #MAX_BULK} ids, every id checked before any is
 * acted on; a delete names the state its jobs are in ({@code "state": "dead"} or
 * {@code "delayed"}) and leaves alone a job that is no longer in it.
 *
 * @since 0.1.0
 */
@RestController
@RequestMapping("${queue.dashboard.path:/queues}")
public class DashboardPagesController {

	/** The audit log of every dashboard action, whichever controller serves it. */
	private static final Logger logger = LoggerFactory.getLogger(QueueDashboardController.class);

	/** Most job ids one bulk action takes. */
	static final int MAX_BULK = 100;

	/** Open batches per page, and recently finished batches shown. */
	static final int BATCH_PAGE = 25;

	/** Most queues the rate limits page reads (each one script call per partition). */
	static final int MAX_RATE_QUEUES = 200;

	/** Longest batch id or search key. */
	private static final int MAX_KEY = 512;

	private final QueueAdminOperations admin;

	private final QueueDashboardSettings settings;

	private final ObjectProvider<RecurringJobScheduler> schedulers;

	private final DashboardAccess access;

	private final byte[] script;

	/**
	 * The pages over the given queues.
	 * @param admin the administration of the queues
	 * @param settings how the dashboard is served
	 * @param schedulers the scheduler of this application's recurring jobs, if it has one
	 */
	public DashboardPagesController(QueueAdminOperations admin, QueueDashboardSettings settings,
			ObjectProvider<RecurringJobScheduler> schedulers) {
		this.admin = admin;
		this.settings = settings;
		this.schedulers = schedulers;
		this.access = settings.springSecurity() ? new SpringSecurityDashboardAccess(settings.role())
				: new DashboardAccess.Open();
		this.script = asset("pages.js");
	}

	@GetMapping("/assets/pages.js")
	ResponseEntity<byte[]> script() {
		return ResponseEntity.ok().contentType(MediaType.valueOf("text/javascript;charset=UTF-8")).body(this.script);
	}

	@GetMapping("/api/batches/{queue}")
	BatchesPage batches(@PathVariable String queue, @RequestParam(defaultValue = "0") int offset,
			HttpServletRequest request) {
		QueueNames.validate(queue);
		long openTotal = this.admin.counts(queue).openBatches();
		List<BatchRow> open = this.admin.batches(queue, Math.max(0, offset), BATCH_PAGE).stream().map(BatchRow::of).toList();
		List<BatchRow> finished = this.admin.finishedBatches(queue, BATCH_PAGE).stream().map(BatchRow::of).toList();
		return new BatchesPage(settings(request), queue, Math.max(0, offset), BATCH_PAGE, openTotal, open, finished);
	}

	@PostMapping("/api/queues/{queue}/batches/{id}/cancel")
	ActionResult cancelBatch(@PathVariable String queue, @PathVariable String id, HttpServletRequest request) {
		QueueNames.validate(queue);
		checkKey(id, "Batch id");
		boolean existed = this.admin.batch(queue, id).isPresent();
		String outcome = "failed";
		try {
			BatchStatus status = this.admin.cancelBatch(queue, id);
			outcome = "batch " + id + " " + (status.isFinished() ? "is " + status.state().name().toLowerCase(Locale.ROOT)
					: "is being cancelled (" + status.active() + " running sub-job(s) finish)");
		}
		catch (QueueBatchException ex) {
			if (!existed) {
				outcome = "no such batch";
				throw ex;
			}
			// it was there: the cancel finished it and its record is gone already
			outcome = "batch " + id + " is cancelled (finished, its record not kept)";
		}
		catch (RuntimeException ex) {
			outcome = "failed: " + ex;
			throw ex;
		}
		finally {
			// written whatever happened: the cancel may have run before a later step failed
			logger.info("Queue dashboard: user '{}' ({}) ran 'cancel batch' on queue '{}', batch {}: {}",
					this.access.user(request), request.getRemoteAddr(), queue, id, outcome);
		}
		return new ActionResult(queue, "cancel batch", 1, "Queue '" + queue + "': " + outcome);
	}

	@GetMapping("/api/schedules")
	SchedulesPage schedules(HttpServletRequest request) {
		RecurringJobScheduler scheduler = this.schedulers.getIfAvailable();
		List<ScheduleRow> rows = new ArrayList<>();
		if (scheduler != null) {
			for (RecurringJobDefinition definition : scheduler.getDefinitions()) {
				rows.add(ScheduleRow.of(definition, scheduler.state(definition)));
			}
		}
		return new SchedulesPage(settings(request), scheduler != null, rows);
	}

	@GetMapping("/api/rate-limits")
	RateLimitsPage rateLimits(HttpServletRequest request) {
		List<String> queues = new ArrayList<>(this.admin.queues());
		boolean cut = queues.size() > MAX_RATE_QUEUES;
		List<RateLimitRow> rows = queues.stream().limit(MAX_RATE_QUEUES)
			.map((queue) -> RateLimitRow.of(this.admin.rateLimitStatus(queue)))
			.toList();
		return new RateLimitsPage(settings(request), rows, cut);
	}

	@GetMapping("/api/find")
	FindResult find(@RequestParam String queue, @RequestParam(defaultValue = "id") String by,
			@RequestParam String key, HttpServletRequest request) {
		QueueNames.validate(queue);
		String kind = by.toLowerCase(Locale.ROOT);
		String text = key.strip();
		checkKey(text, "Search key");
		Optional<String> id = switch (kind) {
			case "id" -> Optional.of(JobIds.validate(text));
			case "unique" -> this.admin.jobIdByUniqueKey(queue, text);
			case "idempotency" -> this.admin.jobIdByIdempotencyKey(queue, text);
			default -> throw new IllegalArgumentException(
					"Unknown search '" + by + "': search by id, unique or idempotency");
		};
		Settings settings = settings(request);
		JobHistoryView job = id.flatMap((found) -> this.admin.jobHistory(queue, found))
			.map((history) -> JobHistoryView.of(settings, history))
			.orElse(null);
		return new FindResult(settings, queue, kind, text, id.orElse(null), job);
	}

	@PostMapping("/api/queues/{queue}/bulk/{action}")
	BulkResult bulk(@PathVariable String queue, @PathVariable String action, @RequestBody BulkRequest body,
			HttpServletRequest request) {
		QueueNames.validate(queue);
		BiPredicate<String, String> operation;
		String name;
		String notDone;
		switch (action) {
			case "retry" -> {
				operation = this.admin::retryDead;
				name = "bulk retry";
				notDone = "not dead (any more)";
			}
			case "delete" -> {
				// only jobs still in the tab's state: one retried or run meanwhile is left alone
				operation = switch (String.valueOf(body.state())) {
					case "dead" -> this.admin::purgeDead;
					case "delayed" -> this.admin::deleteDelayed;
					default -> throw new IllegalArgumentException(
							"Say which jobs to delete: send {\"ids\": [...], \"state\": \"dead\"} or \"delayed\"");
				};
				name = "bulk delete";
				notDone = "not " + body.state() + " (any more)";
			}
			case "promote" -> {
				operation = this.admin::promote;
				name = "bulk run now";
				notDone = "not delayed (any more)";
			}
			default -> throw new IllegalArgumentException(
					"Unknown bulk action '" + action + "': use retry, delete or promote");
		}
		List<String> ids = checkIds(body.ids());
		int changed = 0;
		List<String> unchanged = new ArrayList<>();
		List<String> refused = new ArrayList<>();
		List<BulkFailure> failed = new ArrayList<>();
		String outcome = "";
		try {
			for (String id : ids) {
				try {
					if (operation.test(queue, id)) {
						changed++;
					}
					else {
						unchanged.add(id);
					}
				}
				catch (IllegalStateException ex) {
					// an active job cannot be deleted: the others go on
					refused.add(id);
				}
				catch (RuntimeException ex) {
					// a timeout or a failed script for one id: the ids before it stay changed, the
					// others are still tried, and the answer and the log say which failed
					failed.add(new BulkFailure(id, String.valueOf(ex.getMessage())));
				}
			}
		}
		finally {
			outcome = changed + " of " + ids.size() + " job(s) " + switch (action) {
				case "retry" -> "put back in the queue";
				case "delete" -> "deleted";
				default -> "ready to run";
			} + (unchanged.isEmpty() ? "" : "; " + unchanged.size() + " " + notDone)
					+ (refused.isEmpty() ? "" : "; " + refused.size() + " refused (active)")
					+ (failed.isEmpty() ? "" : "; " + failed.size() + " failed " + failed);
			logger.info("Queue dashboard: user '{}' ({}) ran '{}' on queue '{}', jobs {}: {}", this.access.user(request),
					request.getRemoteAddr(), name, queue, ids, outcome);
		}
		return new BulkResult(queue, name, ids.size(), changed, unchanged, refused, failed,
				"Queue '" + queue + "': " + outcome);
	}

	/** Every id checked, and the count bounded, before any job is touched. */
	private static List<String> checkIds(@Nullable List<String> ids) {
		if (ids == null || ids.isEmpty()) {
			throw new IllegalArgumentException("No job selected: send the ids as {\"ids\": [...]}");
		}
		if (ids.size() > MAX_BULK) {
			throw new IllegalArgumentException("Too many jobs selected (" + ids.size() + "): a bulk action takes at most "
					+ MAX_BULK + " job ids per request");
		}
		Set<String> seen = new HashSet<>();
		for (String id : ids) {
			JobIds.validate(id);
			if (!seen.add(id)) {
				throw new IllegalArgumentException("Job id " + id + " is selected twice");
			}
		}
		return List.copyOf(ids);
	}

	private static void checkKey(String key, String what) {
		if (key.isEmpty() || key.length() > MAX_KEY) {
			throw new IllegalArgumentException(what + " must have from 1 to " + MAX_KEY + " characters");
		}
	}

	@ExceptionHandler({ IllegalArgumentException.class, QueueBatchException.class })
	ResponseEntity<Problem> invalid(RuntimeException ex) {
		return ResponseEntity.badRequest().body(new Problem(400, String.valueOf(ex.getMessage())));
	}

	@ExceptionHandler(IllegalStateException.class)
	ResponseEntity<Problem> conflict(IllegalStateException ex) {
		return ResponseEntity.status(HttpStatus.CONFLICT).body(new Problem(409, String.valueOf(ex.getMessage())));
	}

	private Settings settings(HttpServletRequest request) {
		return new Settings(this.access.user(request), this.settings.readOnly(),
				this.settings.refreshInterval().toMillis(), this.access.csrf(request));
	}

	private static byte[] asset(String name) {
		String path = QueueDashboardController.ASSETS + name;
		try (InputStream in = new ClassPathResource(path, DashboardPagesController.class.getClassLoader())
			.getInputStream()) {
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Dashboard asset " + path + " is missing from the class path", ex);
		}
	}

}
