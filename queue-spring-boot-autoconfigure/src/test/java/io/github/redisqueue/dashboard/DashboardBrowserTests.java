package io.github.redisqueue.dashboard;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redisqueue.annotation.QueueListener;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard in headless Chromium, against a real Redis and an application without Spring
 * Security: counts move on the overview as jobs are enqueued and handled, a dead job is read and
 * retried until it completes, a queue is paused and resumed from its page, a payload holding
 * markup is shown as text and runs nothing, a running job's progress shows as text, read-only
 * mode shows no action and refuses a forged one. The overview, a queue page and a job page are saved as screenshots.
 */
@Tag("browser")
class DashboardBrowserTests {

	private static ConfigurableApplicationContext app;

	private static Browser browser;

	private static String base;

	private QueueTemplate queues;

	private QueueAdmin admin;

	@BeforeAll
	static void start() {
		TestRedis.flushAll(TestRedis.shared());
		app = DashboardApps.start(DashboardApp.class, DashboardApps.NO_SECURITY, "queue.queues.flaky.max-attempts=1");
		base = DashboardApps.base(app);
		browser = Browser.start();
	}

	@AfterAll
	static void stop() {
		try {
			if (browser != null) {
				browser.close();
			}
		}
		finally {
			if (app != null) {
				app.close();
			}
		}
	}

	/** Each test has queues of its own: the application's template registers a queue once. */
	@BeforeEach
	void beans() {
		this.queues = app.getBean(QueueTemplate.class);
		this.admin = app.getBean(QueueAdmin.class);
		app.getBean(Flaky.class).failing.set(true);
	}

	@Test
	void overviewCountsMoveAsJobsAreEnqueuedAndHandled() {
		for (int i = 0; i < 3; i++) {
			this.queues.enqueue("orders", Map.of("order", i));
		}
		browser.open(base + "/");
		browser.waitForText("tr[data-queue='orders'] td[data-count='ready']", "3");

		List<ReservedJob> taken = this.queues.reserve("orders", 3, Duration.ofMinutes(1));
		assertThat(taken).hasSize(3);
		browser.waitForText("tr[data-queue='orders'] td[data-count='inFlight']", "3");
		browser.waitForText("tr[data-queue='orders'] td[data-count='ready']", "0");

		taken.forEach((job) -> this.queues.complete("orders", job.ref()));
		browser.waitForText("tr[data-queue='orders'] td[data-count='completed']", "3");
		browser.waitForText("tr[data-queue='orders'] td[data-count='inFlight']", "0");
		// the listener of 'flaky' is a live worker
		await().atMost(Duration.ofSeconds(60)).until(() -> !this.admin.workers().isEmpty());
		browser.find("#workers tr[data-worker]");

		// a fuller picture for the screenshot: a paused queue with a backlog, dead and delayed jobs
		for (int i = 0; i < 40; i++) {
			this.queues.enqueue("invoices", Map.of("invoice", i, "amount", 100 + i));
		}
		this.admin.pause("invoices");
		this.queues.enqueue("reports", Map.of("report", "monthly"), JobOptions.builder().delay(Duration.ofHours(1)).build());
		browser.waitForText("tr[data-queue='invoices'] td[data-count='ready']", "40");
		browser.find("tr[data-queue='invoices'] .badge.paused");
		// each queue's chart of the last 24 hours
		browser.find("tr[data-queue='orders'] svg.chart polyline[data-series='completed']");
		browser.screenshot("dashboard-overview");
	}

	@Test
	void deadJobShowsItsErrorAndIsRetriedUntilCompleted() {
		String id = this.queues.enqueue("flaky", "A-17").id();
		await().atMost(Duration.ofSeconds(60))
			.until(() -> this.admin.job("flaky", id).map((job) -> job.state() == JobState.DEAD).orElse(false));

		browser.open(base + "/#/queue/flaky/dead?order=newest");
		browser.clickUntil("tr[data-job='" + id + "'] a", (d) -> !d.findElements(By.id("job-error")).isEmpty());
		browser.until((d) -> d.findElement(By.id("job-error")).getText().contains("card declined for order A-17"));
		browser.waitForText("#job-state", "DEAD");
		browser.screenshot("dashboard-job");

		app.getBean(Flaky.class).failing.set(false);
		browser.clickAndConfirm("button[data-action='retry']");
		browser.waitForText("#job-state", "COMPLETED");
		assertThat(this.admin.job("flaky", id).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
		assertThat(app.getBean(Flaky.class).handled).contains("A-17");
	}

	@Test
	void queueIsPausedAndResumedFromItsPage() {
		for (int i = 0; i < 30; i++) {
			this.queues.enqueue("checkout", Map.of("order", i, "sku", "X-" + (100 + i)),
					JobOptions.builder().priority(i % 3).build());
		}
		browser.open(base + "/#/queue/checkout/ready");
		browser.until((d) -> d.findElements(By.cssSelector("#jobs tr[data-job]")).size() == 25);
		browser.screenshot("dashboard-queue");

		browser.clickAndConfirm("button[data-action='pause']");
		browser.waitForText("#queue-state", "paused");
		assertThat(this.admin.counts("checkout").paused()).isTrue();

		browser.clickAndConfirm("button[data-action='resume']");
		browser.waitForText("#queue-state", "running");
		assertThat(this.admin.counts("checkout").paused()).isFalse();
	}

	@Test
	void openBatchShowsItsProgress() {
		this.queues.batch("thumbnails").id("album-7").maxConcurrency(2).addAll(List.of(1, 2, 3, 4, 5)).submit();
		List<ReservedJob> taken = this.queues.reserve("thumbnails", 2, Duration.ofMinutes(1));
		this.queues.complete("thumbnails", taken.get(0).ref());

		browser.open(base + "/#/queue/thumbnails/ready");
		browser.waitForText("#batches tr[data-batch='album-7'] td:nth-child(3)", "20%");
		browser.waitForText("#batches tr[data-batch='album-7'] td:nth-child(4)", "2");
	}

	@Test
	void delayedJobRunsNowAndReadyJobIsDeleted() {
		String delayed = this.queues.enqueue("shipping", "later", JobOptions.builder().delay(Duration.ofHours(2)).build()).id();
		String ready = this.queues.enqueue("shipping", "now").id();

		browser.open(base + "/#/queue/shipping/job/" + delayed);
		browser.waitForText("#job-state", "DELAYED");
		browser.clickAndConfirm("button[data-action='promote']");
		browser.waitForText("#job-state", "READY");

		browser.open(base + "/#/queue/shipping/job/" + ready);
		browser.waitForText("#job-state", "READY");
		browser.clickAndConfirm("button[data-action='delete']");
		await().atMost(Duration.ofSeconds(60)).until(() -> this.admin.job("shipping", ready).isEmpty());
		assertThat(this.admin.counts("shipping").ready()).isEqualTo(1);
	}

	@Test
	void payloadWithMarkupIsShownAsTextAndRunsNothing() {
		String payload = "<script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\"><b>bold</b>";
		String id = this.queues.enqueue("comments", payload.getBytes(StandardCharsets.UTF_8)).id();

		browser.open(base + "/#/queue/comments/ready");
		browser.until((d) -> d.findElement(By.cssSelector("tr[data-job='" + id + "'] code")).getText().equals(payload));
		browser.open(base + "/#/queue/comments/job/" + id);
		browser.waitForText("#job-payload", payload);
		assertThat(browser.driver().findElements(By.cssSelector("#view img, #view script, #view b"))).isEmpty();
		assertThat(browser.script("return typeof window.pwned")).isEqualTo("undefined");
	}

	@Test
	void runningJobShowsItsProgressAsTextInTheInFlightTableAndOnItsPage() {
		String id = this.queues.enqueue("exports", "customers.csv").id();
		ReservedJob job = this.queues.reserve("exports", 1, Duration.ofMinutes(1)).get(0);
		assertThat(this.queues.progress("exports", job.ref(), "<b>40%</b>")).isTrue();

		browser.open(base + "/#/queue/exports/active");
		browser.waitForText("#jobs tr[data-job='" + id + "'] .job-progress", "<b>40%</b>");
		browser.open(base + "/#/queue/exports/job/" + id);
		browser.waitForText("#job-progress", "<b>40%</b>");
		assertThat(browser.driver().findElements(By.cssSelector("#view b"))).isEmpty();

		// the open page follows the progress as it is reported
		assertThat(this.queues.progress("exports", job.ref(), Map.of("rows", 700))).isTrue();
		browser.waitForText("#job-progress", "{\"rows\":700}");
	}

	@Test
	void actionWithoutTheDashboardHeaderIsRefused() {
		this.queues.enqueue("refunds", "x");
		HttpResponse<String> forged = DashboardApps.post(base + "/api/queues/refunds/pause", null, null);
		assertThat(forged.statusCode()).isEqualTo(403);
		assertThat(forged.body()).contains("X-Queue-Dashboard");
		assertThat(this.admin.counts("refunds").paused()).isFalse();

		HttpResponse<String> get = DashboardApps.get(base + "/api/queues/refunds/pause", null, null);
		assertThat(get.statusCode()).isNotEqualTo(200);
		assertThat(this.admin.counts("refunds").paused()).isFalse();
	}

	@Test
	void readOnlyDashboardShowsNoActionAndRefusesAForgedOne() {
		this.queues.enqueue("returns", "x");
		String dead = this.queues.enqueue("flaky", "B-2").id();
		await().atMost(Duration.ofSeconds(60))
			.until(() -> this.admin.job("flaky", dead).map((job) -> job.state() == JobState.DEAD).orElse(false));
		try (ConfigurableApplicationContext readOnly = DashboardApps.start(DashboardApp.class,
				DashboardApps.NO_SECURITY, "queue.dashboard.read-only=true", "queue.listener.auto-startup=false")) {
			String readOnlyBase = DashboardApps.base(readOnly);
			browser.open(readOnlyBase + "/#/queue/flaky/job/" + dead);
			browser.waitForText("#job-state", "DEAD");
			browser.waitForText("#mode", "read-only");
			browser.open(readOnlyBase + "/#/queue/returns/ready");
			browser.find("#jobs tr[data-job]");
			assertThat(browser.driver().findElements(By.cssSelector("[data-action]"))).isEmpty();

			HttpResponse<String> forged = DashboardApps.post(readOnlyBase + "/api/queues/returns/pause", null, null,
					"X-Queue-Dashboard", "1");
			assertThat(forged.statusCode()).isEqualTo(403);
			assertThat(forged.body()).contains("read-only");
			HttpResponse<String> retry = DashboardApps.post(readOnlyBase + "/api/queues/flaky/jobs/" + dead + "/retry",
					null, null, "X-Queue-Dashboard", "1");
			assertThat(retry.statusCode()).isEqualTo(403);
		}
		assertThat(this.admin.counts("returns").paused()).isFalse();
		assertThat(this.admin.job("flaky", dead).orElseThrow().state()).isEqualTo(JobState.DEAD);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class DashboardApp {

		@Bean
		Flaky flaky() {
			return new Flaky();
		}

	}

	/** Fails every job while {@link #failing} is set. */
	static class Flaky {

		final AtomicBoolean failing = new AtomicBoolean(true);

		final List<String> handled = new java.util.concurrent.CopyOnWriteArrayList<>();

		@QueueListener(queue = "flaky", id = "flaky")
		void handle(String order) {
			if (this.failing.get()) {
				throw new IllegalStateException("card declined for order " + order);
			}
			this.handled.add(order);
		}

	}

}
