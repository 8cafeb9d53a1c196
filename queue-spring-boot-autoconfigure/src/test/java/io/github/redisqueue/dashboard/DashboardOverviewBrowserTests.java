package io.github.redisqueue.dashboard;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueHistory;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What an operator reads on the dashboard, in headless Chromium against a real Redis: the
 * overview shows every kind of pending work (sub-jobs held at a batch's cap among them) and running
 * totals of completed and failed jobs beyond what is retained; the per-minute chart draws what
 * Redis holds, with labelled axes; a running job shows the attempt its handler sees and its
 * progress as a bar; a dead job shows no lease; a finished job's link says why it is gone. The
 * overview and a queue's page with its chart are saved as screenshots.
 */
@Tag("browser")
class DashboardOverviewBrowserTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static ConfigurableApplicationContext app;

	private static Browser browser;

	private static String base;

	private QueueTemplate queues;

	private QueueAdmin admin;

	@BeforeAll
	static void start() {
		TestRedis.flushAll(TestRedis.shared());
		app = DashboardApps.start(OverviewApp.class, DashboardApps.NO_SECURITY, "queue.listener.auto-startup=false",
				"queue.retention.completed=0");
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

	@BeforeEach
	void beans() {
		this.queues = app.getBean(QueueTemplate.class);
		this.admin = app.getBean(QueueAdmin.class);
	}

	@Test
	void overviewShowsWorkHeldAtABatchCapAndRunningTotalsBeyondRetention() {
		// 630 sub-jobs of a batch that runs 2 at once: 2 ready, 628 held at the cap
		this.queues.batch("renders").id("film-1").maxConcurrency(2)
			.addAll(IntStream.range(0, 630).boxed().toList()).submit();
		// 1,005 completions (none retained) and 2 failures
		this.queues.enqueueAll("mail", IntStream.range(0, 1007).boxed().toList(),
				JobOptions.builder().maxAttempts(1).build());
		completeAll("mail", 1005);
		this.queues.reserve("mail", 2, Duration.ofMinutes(1))
			.forEach((job) -> this.queues.retry("mail", job.ref(), "mailbox full", Duration.ZERO));
		assertThat(this.admin.counts("mail").completed()).isZero();

		browser.open(base + "/");
		browser.waitForText("tr[data-queue='renders'] td[data-count='batchWaiting']", "628");
		browser.waitForText("tr[data-queue='renders'] td[data-count='ready']", "2");
		browser.waitForText("tr[data-queue='renders'] td[data-count='groupWaiting']", "0");
		browser.waitForText("tr[data-queue='mail'] td[data-count='completed']", "1005");
		browser.waitForText("tr[data-queue='mail'] td[data-count='failed']", "2");
		browser.waitForText("tr[data-queue='mail'] td[data-count='dead']", "2");
		// each queue's small chart has labelled axes: hours on x, the peak on y
		browser.until((d) -> {
			List<String> hours = d.findElements(By.cssSelector("tr[data-queue='mail'] svg.chart text[data-axis='x']"))
				.stream().map(WebElement::getText).toList();
			return hours.size() == 3 && hours.stream().allMatch((t) -> t.matches("\\d\\d:00")) ? Boolean.TRUE : null;
		});
		browser.until((d) -> Long.parseLong(d.findElement(By.cssSelector("tr[data-queue='mail'] svg.chart text[data-axis='y-max']"))
			.getText()) >= 1005 ? Boolean.TRUE : null);

		browser.open(base + "/#/queue/renders/ready");
		browser.waitForText("[data-card='At batch cap'] .value", "628");
		browser.open(base + "/");
		browser.waitForText("tr[data-queue='mail'] td[data-count='completed']", "1005");
		screenshot("dashboard-overview-counts");
	}

	@Test
	void queueChartShowsTheCurrentMinuteAsRedisHoldsIt() throws Exception {
		awaitEarlyInMinute();
		this.queues.enqueueAll("charted", IntStream.range(0, 10).boxed().toList(),
				JobOptions.builder().maxAttempts(1).build());
		completeAll("charted", 7);
		this.queues.reserve("charted", 1, Duration.ofMinutes(1))
			.forEach((job) -> this.queues.retry("charted", job.ref(), "no", Duration.ZERO));
		QueueHistory history = this.admin.history("charted");
		assertThat(history.completed().get(QueueHistory.MINUTES - 1)).isEqualTo(7);

		HttpResponse<String> api = DashboardApps.get(base + "/api/queues/charted/history", null, null);
		assertThat(api.statusCode()).isEqualTo(200);
		JsonNode chart = json.readTree(api.body());
		assertThat(chart.get("completed")).hasSize(QueueHistory.MINUTES);
		assertThat(chart.get("completed").get(QueueHistory.MINUTES - 1).asLong()).isEqualTo(7);
		assertThat(chart.get("failed").get(QueueHistory.MINUTES - 1).asLong()).isEqualTo(1);
		assertThat(chart.get("start").asLong()).isEqualTo(history.start().toEpochMilli());

		browser.open(base + "/#/queue/charted/ready");
		// the page redraws itself: each check finds the chart again
		browser.until((d) -> {
			WebElement svg = d.findElement(By.cssSelector("#queue-chart svg.chart.big"));
			return "7".equals(svg.getAttribute("data-current-completed")) && "1".equals(svg.getAttribute("data-current-failed"))
					&& "7".equals(svg.getAttribute("data-max")) ? Boolean.TRUE : null;
		});
		browser.waitForText("#queue-chart svg.chart text[data-axis='y-max']", "7");
		browser.waitForText("#queue-chart svg.chart text[data-axis='y-min']", "0");
		browser.until((d) -> {
			List<String> hours = d.findElements(By.cssSelector("#queue-chart svg.chart text[data-axis='x']")).stream()
				.map(WebElement::getText).toList();
			return hours.size() == 8 && hours.stream().allMatch((t) -> t.matches("\\d\\d:00")) ? Boolean.TRUE : null;
		});
		browser.until((d) -> d.findElement(By.cssSelector("#queue-chart svg.chart title")).getAttribute("textContent")
			.contains("now: 7 completed, 1 failed") ? Boolean.TRUE : null);
		browser.until((d) -> d.findElements(By.cssSelector("#queue-chart polyline[data-series]")).size() == 2
				? Boolean.TRUE : null);
		browser.waitForText("#chart-now", "this minute: 7 completed, 1 failed");

		// a fuller picture for the screenshot: work of every kind
		this.queues.enqueueAll("charted", IntStream.range(0, 12).boxed().toList(), JobOptions.defaults());
		this.queues.enqueue("charted", "later", JobOptions.builder().delay(Duration.ofHours(1)).build());
		this.queues.reserve("charted", 3, Duration.ofMinutes(5));
		browser.waitForText("[data-card='In flight'] .value", "3");
		screenshot("dashboard-queue-chart");
	}

	@Test
	void runningJobShowsTheAttemptItsHandlerSeesAndItsProgressAsABar() {
		String id = this.queues.enqueue("exports", "customers.csv").id();
		ReservedJob job = this.queues.reserve("exports", 1, Duration.ofMinutes(5)).get(0);
		assertThat(job.attempt()).isEqualTo(1);
		assertThat(this.queues.progress("exports", job.ref(), 0.4)).isTrue();

		browser.open(base + "/#/queue/exports/active");
		browser.waitForText("#jobs tr[data-job='" + id + "'] td:nth-child(3)", "1 / 3");
		browser.until((d) -> "40.0".equals(d.findElement(By.cssSelector("#jobs tr[data-job='" + id + "'] .job-progress"))
			.getAttribute("data-percent")) ? Boolean.TRUE : null);

		browser.open(base + "/#/queue/exports/job/" + id);
		browser.waitForText("#job-attempts", "1 of 3");
		browser.until((d) -> "40.0".equals(d.findElement(By.id("job-progress")).getAttribute("data-percent")) ? Boolean.TRUE
				: null);
		assertThat(this.queues.progress("exports", job.ref(), Map.of("done", 3, "total", 4))).isTrue();
		browser.until((d) -> "75.0".equals(d.findElement(By.id("job-progress")).getAttribute("data-percent")) ? Boolean.TRUE
				: null);
		browser.waitForText("#job-progress", "75% (3 of 4)");
		assertThat(this.queues.progress("exports", job.ref(), Map.of("percent", 55))).isTrue();
		browser.until((d) -> "55.0".equals(d.findElement(By.id("job-progress")).getAttribute("data-percent")) ? Boolean.TRUE
				: null);
		// what is no fraction nor percentage stays text
		assertThat(this.queues.progress("exports", job.ref(), Map.of("rows", 700))).isTrue();
		browser.until((d) -> {
			WebElement progress = d.findElement(By.id("job-progress"));
			return "{\"rows\":700}".equals(progress.getText()) && progress.getAttribute("data-percent") == null
					? Boolean.TRUE : null;
		});
		assertThat(browser.driver().findElements(By.xpath("//dt[text()='Lease until']"))).hasSize(1);
	}

	@Test
	void deadJobShowsNoLeaseAndAFinishedJobsLinkSaysWhyItIsGone() {
		String dead = this.queues.enqueue("billing", "A-1", JobOptions.builder().maxAttempts(1).build()).id();
		ReservedJob taken = this.queues.reserve("billing", 1, Duration.ofMinutes(5)).get(0);
		this.queues.retry("billing", taken.ref(), "card declined", Duration.ZERO);
		browser.open(base + "/#/queue/billing/job/" + dead);
		browser.waitForText("#job-state", "DEAD");
		browser.waitForText("#job-attempts", "1 of 1");
		assertThat(browser.driver().findElements(By.xpath("//dt[text()='Lease until' or text()='Lease holder']"))).isEmpty();

		String done = this.queues.enqueue("billing", "A-2").id();
		this.queues.complete("billing", this.queues.reserve("billing", 1, Duration.ofMinutes(5)).get(0).ref());
		browser.open(base + "/#/queue/billing/job/" + done);
		// drawn again at each refresh: found again at each check
		browser.until((d) -> {
			String text = d.findElement(By.id("job-gone")).getText();
			return text.contains("Job " + done + " of queue 'billing' is no longer kept")
					&& text.contains("completed jobs are removed as soon as they complete") ? Boolean.TRUE : null;
		});
		browser.until((d) -> !d.findElement(By.id("view")).getText().contains("Loading") ? Boolean.TRUE : null);
	}

	private void completeAll(String queue, int count) {
		int left = count;
		while (left > 0) {
			List<JobRef> refs = this.queues.reserve(queue, Math.min(left, 200), Duration.ofMinutes(5)).stream()
				.map(ReservedJob::ref).toList();
			assertThat(refs).isNotEmpty();
			this.queues.completeAll(queue, refs);
			left -= refs.size();
		}
	}

	/** Waits until the Redis clock is in the first 40 s of a minute. */
	private void awaitEarlyInMinute() {
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
			.until(() -> this.admin.history("clock").serverTime().toEpochMilli() % 60_000 < 40_000);
	}

	/** A screenshot under target/screenshots, copied to docs/images when the documentation asks for it. */
	private static void screenshot(String name) {
		Path taken = browser.screenshot(name);
		if (Boolean.getBoolean("dashboard.screenshots.docs")) {
			try {
				Path docs = Paths.get("..", "docs", "images");
				Files.createDirectories(docs);
				Files.copy(taken, docs.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
			}
			catch (java.io.IOException ex) {
				throw new java.io.UncheckedIOException(ex);
			}
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class OverviewApp {

	}

}
