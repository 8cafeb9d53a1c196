package io.github.redisqueue.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiPredicate;

import io.github.redisqueue.core.JobIds;
import io.github.redisqueue.core.JobOrder;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueBatchException;
import io.github.redisqueue.core.QueueCounts;
import io.github.redisqueue.core.QueueNames;
import io.github.redisqueue.core.QueueOverview;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.dashboard.DashboardViews.ActionResult;
import io.github.redisqueue.dashboard.DashboardViews.BatchRow;
import io.github.redisqueue.dashboard.DashboardViews.Chart;
import io.github.redisqueue.dashboard.DashboardViews.JobDetail;
import io.github.redisqueue.dashboard.DashboardViews.JobRow;
import io.github.redisqueue.dashboard.DashboardViews.Overview;
import io.github.redisqueue.dashboard.DashboardViews.Problem;
import io.github.redisqueue.dashboard.DashboardViews.QueuePage;
import io.github.redisqueue.dashboard.DashboardViews.QueueRow;
import io.github.redisqueue.dashboard.DashboardViews.Settings;
import io.github.redisqueue.dashboard.DashboardViews.WorkerRow;
import jakarta.servlet.http.HttpServletRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.io.ClassPathResource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * The operator dashboard at {@code queue.dashboard.path}: its page and assets (served from the
 * jar), and the JSON API the page reads and acts through. Reads: the overview of every queue and
 * the live workers ({@code GET {path}/api/overview}), a page of one queue's jobs in one state
 * ({@code GET {path}/api/queues/{queue}?state=dead&order=newest&offset=0&count=25}), one job
 * ({@code GET {path}/api/queues/{queue}/jobs/{id}}). Actions, each a POST logged with the
 * queue, the job ids and the user: {@code pause}, {@code resume}, {@code dead/retry},
 * {@code dead/purge} on a queue, {@code retry}, {@code delete}, {@code promote} on a job.
 *
 * @since 0.1.0
 */
@RestController
@RequestMapping("${queue.dashboard.path:/queues}")
public class QueueDashboardController {

	private static final Logger logger = LoggerFactory.getLogger(QueueDashboardController.class);

	/** Where the page, script and style sheet are on the class path (see {@link QueueDashboardRuntimeHints}). */
	static final String ASSETS = "io/github/redisqueue/dashboard/static/";

	private static final int BATCH_ROWS = 20;

	/** Minutes per step of the overview's small charts. */
	private static final int OVERVIEW_CHART_STEP = 10;

	/** How old the history behind an overview's chart may be. */
	private static final long OVERVIEW_CHART_AGE_MILLIS = 15_000;

	private final QueueAdminOperations admin;

	private final QueueDashboardSettings settings;

	private final DashboardAccess access;

	private final DashboardHistory history;

	private final byte[] page = asset("index.html");

	private final byte[] script = asset("app.js");

	private final byte[] style = asset("app.css");

	/**
	 * A dashboard over the given queues.
	 * @param admin the administration of the queues
	 * @param settings how it is served
	 */
	public QueueDashboardController(QueueAdminOperations admin, QueueDashboardSettings settings) {
		this.admin = admin;
		this.settings = settings;
		this.access = settings.springSecurity() ? new SpringSecurityDashboardAccess(settings.role())
				: new DashboardAccess.Open();
		this.history = new DashboardHistory(Math.max(OVERVIEW_CHART_AGE_MILLIS, settings.refreshInterval().toMillis()));
	}

	/** The interceptor that applies the dashboard's access rules; map it to the dashboard's paths. */
	public HandlerInterceptor accessInterceptor() {
		return new DashboardInterceptor(this.access, this.settings.readOnly());
	}

	/** The settings the dashboard runs with. */
	public QueueDashboardSettings getSettings() {
		return this.settings;
	}

	@GetMapping("")
	ResponseEntity<Void> redirect() {
		return ResponseEntity.status(HttpStatus.FOUND).header("Location", this.settings.path() + "/").build();
	}

	@GetMapping("/")
	ResponseEntity<byte[]> page() {
		return ResponseEntity.ok().contentType(MediaType.valueOf("text/html;charset=UTF-8"))
			.body(this.page);
	}

	@GetMapping("/assets/app.js")
	ResponseEntity<byte[]> script() {
		return ResponseEntity.ok().contentType(MediaType.valueOf("text/javascript;charset=UTF-8")).body(this.script);
	}

	@GetMapping("/assets/app.css")
	ResponseEntity<byte[]> style() {
		return ResponseEntity.ok().contentType(MediaType.valueOf("text/css;charset=UTF-8")).body(this.style);
	}

	@GetMapping("/api/overview")
	Overview overview(HttpServletRequest request) {
		QueueOverview overview = this.admin.overview();
		long now = System.currentTimeMillis();
		this.history.retain(overview.queues().keySet());
		List<QueueRow> queues = new ArrayList<>();
		overview.queues().forEach((name, counts) -> queues.add(QueueRow.of(counts,
				Chart.of(this.history.of(name, now, this.admin::history), OVERVIEW_CHART_STEP))));
		return new Overview(settings(request), queues, overview.workers().stream().map(WorkerRow::of).toList(), now);
	}

	@GetMapping("/api/queues/{queue}")
	QueuePage queue(@PathVariable String queue, @RequestParam(defaultValue = "ready") String state,
			@RequestParam(defaultValue = "oldest") String order, @RequestParam(defaultValue = "0") int offset,
			@RequestParam(defaultValue = "25") int count, HttpServletRequest request) {
		QueueNames.validate(queue);
		JobState jobState = state(state);
		JobOrder jobOrder = order(order);
		QueueCounts counts = this.admin.counts(queue);
		long total = switch (jobState) {
			case READY -> counts.ready();
			case DELAYED -> counts.delayed();
			case ACTIVE -> counts.inFlight();
			default -> counts.dead();
		};
		List<JobRow> jobs = this.admin.jobs(queue, jobState, jobOrder, offset, count).stream().map(JobRow::of).toList();
		List<BatchRow> batches = (counts.openBatches() > 0)
				? this.admin.batches(queue, 0, BATCH_ROWS).stream().map(BatchRow::of).toList() : List.of();
		return new QueuePage(settings(request), QueueRow.of(counts, Chart.of(this.admin.history(queue), 1)), jobState.name(),
				jobOrder.name(), offset, count, total, jobs, batches);
	}

	/**
	 * A queue's jobs completed and failed per step of {@code step} minutes over the last 24
	 * hours, as Redis holds them.
	 */
	@GetMapping("/api/queues/{queue}/history")
	Chart history(@PathVariable String queue, @RequestParam(defaultValue = "1") int step) {
		QueueNames.validate(queue);
		return Chart.of(this.admin.history(queue), step);
	}

	@GetMapping("/api/queues/{queue}/jobs/{id}")
	ResponseEntity<?> job(@PathVariable String queue, @PathVariable String id, HttpServletRequest request) {
		QueueNames.validate(queue);
		JobIds.validate(id);
		return this.admin.job(queue, id)
			.<ResponseEntity<?>>map((job) -> ResponseEntity.ok(JobDetail.of(settings(request), job)))
			.orElseGet(() -> ResponseEntity.status(HttpStatus.NOT_FOUND)
				.body(new Problem(404, gone(queue, id))));
	}

	/** Why a job is not found: finished jobs are kept for a while only (or were deleted). */
	private String gone(String queue, String id) {
		String message = "Job " + id + " of queue '" + queue + "' is no longer kept (or never existed): ";
		if (this.admin instanceof QueueAdmin queueAdmin) {
			QueueSettings settings = queueAdmin.getTemplate().getSettings();
			Duration completed = settings.completedRetention();
			Duration dead = settings.deadRetention();
			return message + (completed.isZero() ? "completed jobs are removed as soon as they complete"
					: "completed jobs are removed " + DashboardViews.duration(completed) + " after they complete")
					+ " (queue.retention.completed), dead jobs "
					+ (dead.isZero() ? "when purged" : DashboardViews.duration(dead) + " after they died or when purged")
					+ " (queue.retention.dead); a job may also have been deleted.";
		}
		return message + "it completed and was removed, or it was purged or deleted.";
	}

	@PostMapping("/api/queues/{queue}/pause")
	ActionResult pause(@PathVariable String queue, HttpServletRequest request) {
		QueueNames.validate(queue);
		boolean changed = this.admin.pause(queue);
		return audit(request, queue, "pause", List.of(), changed ? 1 : 0,
				changed ? "paused" : "was already paused");
	}

	@PostMapping("/api/queues/{queue}/resume")
	ActionResult resume(@PathVariable String queue, HttpServletRequest request) {
		QueueNames.validate(queue);
		boolean changed = this.admin.resume(queue);
		return audit(request, queue, "resume", List.of(), changed ? 1 : 0,
				changed ? "resumed" : "was not paused");
	}

	@PostMapping("/api/queues/{queue}/dead/retry")
	ActionResult retryAllDead(@PathVariable String queue, HttpServletRequest request) {
		QueueNames.validate(queue);
		long count = this.admin.retryAllDead(queue);
		return audit(request, queue, "retry all dead", List.of(), count, count + " dead job(s) put back in the queue");
	}

	@PostMapping("/api/queues/{queue}/dead/purge")
	ActionResult purgeAllDead(@PathVariable String queue, HttpServletRequest request) {
		QueueNames.validate(queue);
		long count = this.admin.purgeAllDead(queue);
		return audit(request, queue, "purge dead", List.of(), count, count + " dead job(s) deleted");
	}

	@PostMapping("/api/queues/{queue}/jobs/{id}/retry")
	ActionResult retry(@PathVariable String queue, @PathVariable String id, HttpServletRequest request) {
		return jobAction(request, queue, id, "retry", this.admin::retryDead, "put back in the queue",
				"is not dead (any more)");
	}

	@PostMapping("/api/queues/{queue}/jobs/{id}/delete")
	ActionResult delete(@PathVariable String queue, @PathVariable String id, HttpServletRequest request) {
		return jobAction(request, queue, id, "delete", this.admin::deleteJob, "deleted", "does not exist (any more)");
	}

	@PostMapping("/api/queues/{queue}/jobs/{id}/promote")
	ActionResult promote(@PathVariable String queue, @PathVariable String id, HttpServletRequest request) {
		return jobAction(request, queue, id, "run now", this.admin::promote, "is ready to run",
				"is not delayed (any more)");
	}

	private ActionResult jobAction(HttpServletRequest request, String queue, String id, String action,
			BiPredicate<String, String> operation, String done, String notDone) {
		QueueNames.validate(queue);
		JobIds.validate(id);
		boolean changed = operation.test(queue, id);
		return audit(request, queue, action, List.of(id), changed ? 1 : 0,
				"job " + id + " " + (changed ? done : notDone));
	}

	@ExceptionHandler({ IllegalArgumentException.class, QueueBatchException.class })
	ResponseEntity<Problem> invalid(RuntimeException ex) {
		return ResponseEntity.badRequest().body(new Problem(400, String.valueOf(ex.getMessage())));
	}

	@ExceptionHandler(IllegalStateException.class)
	ResponseEntity<Problem> conflict(IllegalStateException ex) {
		return ResponseEntity.status(HttpStatus.CONFLICT).body(new Problem(409, String.valueOf(ex.getMessage())));
	}

	private ActionResult audit(HttpServletRequest request, String queue, String action, List<String> ids, long count,
			String outcome) {
		logger.info("Queue dashboard: user '{}' ({}) ran '{}' on queue '{}'{}: {}", this.access.user(request),
				request.getRemoteAddr(), action, queue, ids.isEmpty() ? "" : ", jobs " + ids, outcome);
		return new ActionResult(queue, action, count, "Queue '" + queue + "': " + outcome);
	}

	private Settings settings(HttpServletRequest request) {
		return new Settings(this.access.user(request), this.settings.readOnly(),
				this.settings.refreshInterval().toMillis(), this.access.csrf(request));
	}

	private static final Map<String, JobState> STATES = Map.of("ready", JobState.READY, "delayed", JobState.DELAYED,
			"active", JobState.ACTIVE, "dead", JobState.DEAD);

	private static JobState state(String name) {
		JobState state = STATES.get(name.toLowerCase(Locale.ROOT));
		if (state == null) {
			throw new IllegalArgumentException(
					"Unknown job state '" + name + "': use ready, delayed, active or dead");
		}
		return state;
	}

	private static JobOrder order(String name) {
		return switch (name.toLowerCase(Locale.ROOT)) {
			case "oldest" -> JobOrder.OLDEST_FIRST;
			case "newest" -> JobOrder.NEWEST_FIRST;
			default -> throw new IllegalArgumentException("Unknown order '" + name + "': use oldest or newest");
		};
	}

	private static byte[] asset(String name) {
		try (InputStream in = new ClassPathResource(ASSETS + name, QueueDashboardController.class.getClassLoader())
			.getInputStream()) {
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Dashboard asset " + ASSETS + name + " is missing from the class path", ex);
		}
	}

}
