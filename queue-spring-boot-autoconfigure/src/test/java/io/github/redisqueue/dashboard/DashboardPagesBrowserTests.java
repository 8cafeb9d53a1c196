package io.github.redisqueue.dashboard;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.github.redisqueue.annotation.RecurringJob;
import io.github.redisqueue.core.BatchState;
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
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard's batches, schedules, rate limits and job search pages, and its bulk actions on
 * dead and delayed jobs, in headless Chromium against a real Redis, without Spring Security. Each
 * page is saved as a screenshot.
 */
@Tag("browser")
@ExtendWith(OutputCaptureExtension.class)
class DashboardPagesBrowserTests {

	private static ConfigurableApplicationContext app;

	private static Browser browser;

	private static String base;

	private QueueTemplate queues;

	private QueueAdmin admin;

	@BeforeAll
	static void start() {
		TestRedis.flushAll(TestRedis.shared());
		app = DashboardApps.start(PagesApp.class, DashboardApps.NO_SECURITY, "queue.queues.metered.rate-limit=2/1m");
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
	void batchesPageShowsProgressAndFinishedBatchesAndCancelsAnOpenOne(CapturedOutput output) {
		this.queues.batch("thumbs").id("album-9").maxConcurrency(2).addAll(List.of(1, 2, 3, 4, 5)).submit();
		this.queues.batch("thumbs").id("album-3").addAll(List.of(1)).submit();
		List<ReservedJob> taken = this.queues.reserve("thumbs", 3, Duration.ofMinutes(1));
		// album-3's only sub-job and the two of album-9 within its cap
		assertThat(taken).hasSize(3);
		ReservedJob running = null;
		for (ReservedJob job : taken) {
			if (this.admin.jobHistory("thumbs", job.id()).orElseThrow().batch().equals("album-3") || running != null) {
				this.queues.complete("thumbs", job.ref());
			}
			else {
				running = job;
			}
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.admin.batch("thumbs", "album-3").orElseThrow().isFinished());

		browser.open(base + "/#/batches");
		browser.clickUntil("#batch-queues tr[data-queue='thumbs'] a", (d) -> d.getCurrentUrl().contains("#/batches/thumbs"));
		// the queue's page links to its batches
		browser.open(base + "/#/queue/thumbs/ready");
		browser.clickUntil("a[data-link='batches']", (d) -> d.getCurrentUrl().endsWith("#/batches/thumbs"));
		browser.waitForText("#open-batches tr[data-batch='album-9'] td:nth-child(3)", "20%");
		browser.waitForText("#open-batches tr[data-batch='album-9'] td[data-count='waiting']", "2");
		browser.waitForText("#finished-batches tr[data-batch='album-3'] td:nth-child(2)", "COMPLETED");
		browser.screenshot("dashboard-batches");

		browser.clickAndConfirm("#open-batches tr[data-batch='album-9'] button[data-action='cancel-batch']");
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.admin.batch("thumbs", "album-9").orElseThrow().state() == BatchState.CANCELLING);
		// the running sub-job finishes, then the batch is cancelled and listed as finished
		this.queues.complete("thumbs", running.ref());
		browser.waitForText("#finished-batches tr[data-batch='album-9'] td:nth-child(2)", "CANCELLED");
		assertThat(this.admin.batch("thumbs", "album-9").orElseThrow().cancelled()).isEqualTo(3);
		assertThat(output).contains("ran 'cancel batch' on queue 'thumbs', batch album-9");
	}

	@Test
	void schedulesPageShowsEachRecurringJobWithItsTicks() {
		browser.open(base + "/");
		browser.clickUntil("#pages a[href='#/schedules']", (d) -> d.getCurrentUrl().contains("#/schedules"));
		browser.waitForText("#schedules tr[data-schedule='nightly-digest'] td[data-field='missed']", "skip");
		browser.waitForText("#schedules tr[data-schedule='nightly-digest'] td:nth-child(4)", "Europe/Paris");
		browser.until((d) -> d.findElement(By.cssSelector("#schedules tr[data-schedule='nightly-digest'] td[data-field='next']"))
			.getText().contains("(in "));
		// the schedule of every second has ticked: its last tick shows
		browser.until((d) -> d.findElement(By.cssSelector("#schedules tr[data-schedule='heartbeat'] td[data-field='last']"))
			.getText().endsWith("ago)"));
		browser.screenshot("dashboard-schedules");
	}

	@Test
	void rateLimitsPageShowsHandOutsAndWhatTheLimitHeldBack() {
		for (int i = 0; i < 5; i++) {
			this.queues.enqueue("metered", Map.of("call", i));
		}
		this.queues.enqueue("unmetered", "x");
		// the limit hands out 2 in any minute: a reserve of 3 gets 2, the third held back
		assertThat(this.queues.reserve("metered", 3, Duration.ofMinutes(1))).hasSize(2);
		assertThat(this.queues.reserve("metered", 1, Duration.ofMinutes(1))).isEmpty();

		browser.open(base + "/#/rate-limits");
		browser.waitForText("#rate-limits tr[data-queue='metered'] td[data-field='limit']", "2/1m");
		browser.waitForText("#rate-limits tr[data-queue='metered'] td[data-field='limited']", "2");
		browser.waitForText("#rate-limits tr[data-queue='metered'] td[data-field='held']", "2");
		browser.until((d) -> d.findElement(By.cssSelector("#rate-limits tr[data-queue='metered'] td:nth-child(3)"))
			.getText().contains("2 of 2"));
		browser.until((d) -> d.findElement(By.cssSelector("#rate-limits tr[data-queue='metered'] td[data-field='next']"))
			.getText().startsWith("in "));
		browser.waitForText("#rate-limits tr[data-queue='unmetered'] td[data-field='limit']", "none");
		browser.screenshot("dashboard-rate-limits");
	}

	@Test
	void jobIsFoundByIdUniquenessKeyAndIdempotencyKeyWithItsHistory() {
		String unique = this.queues.enqueue("billing", Map.of("invoice", 42),
				JobOptions.builder().uniqueKey("invoice-42").maxAttempts(3).build()).id();
		ReservedJob job = this.queues.reserve("billing", 1, Duration.ofMinutes(1)).get(0);
		assertThat(job.id()).isEqualTo(unique);
		this.queues.retry("billing", job.ref(), "gateway timeout\n\tat Billing.charge", Duration.ZERO);
		String idempotent = this.queues.enqueue("billing", Map.of("payment", 7),
				JobOptions.builder().idempotencyKey("pay-7").delay(Duration.ofHours(1)).build()).id();

		browser.open(base + "/#/find");
		// each step finds its element again: the page may redraw it in between
		browser.type("#find-queue", "billing");
		browser.select("#find-by", "unique");
		browser.type("#find-key", "invoice-42");
		browser.clickUntil("#find-go", (d) -> !d.findElements(By.id("found-job")).isEmpty());
		browser.waitForText("#found-job", unique);
		browser.find("#job-history tr[data-event='enqueued']");
		browser.until((d) -> d.findElement(By.cssSelector("#job-history tr[data-event='failed']")).getText()
			.contains("gateway timeout"));
		browser.until((d) -> d.findElement(By.id("found-error")).getText().contains("at Billing.charge"));
		browser.screenshot("dashboard-find");

		browser.open(base + "/#/find?queue=billing&by=idempotency&key=pay-7");
		browser.waitForText("#found-job", idempotent);
		browser.waitForText("#found-state", "DELAYED");
		browser.find("#job-history tr[data-event='due']");

		browser.open(base + "/#/find?queue=billing&by=id&key=" + unique);
		browser.waitForText("#found-job", unique);
		browser.open(base + "/#/find?queue=billing&by=unique&key=nobody");
		browser.until((d) -> d.findElement(By.id("find-none")).getText().contains("nobody"));
		browser.open(base + "/#/find?queue=billing&by=id&key=x1");
		browser.until((d) -> d.findElement(By.id("find-error")).getText().contains("is invalid"));
	}

	@Test
	void selectedDeadAndDelayedJobsAreRetriedRunNowAndDeletedInBulk(CapturedOutput output) {
		List<String> dead = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			dead.add(this.queues.enqueue("mailer", Map.of("mail", i)).id());
		}
		this.queues.reserve("mailer", 3, Duration.ofMinutes(1))
			.forEach((job) -> this.queues.deadLetter("mailer", job.ref(), "mailbox full"));
		List<String> delayed = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			delayed.add(this.queues.enqueue("mailer", Map.of("later", i), JobOptions.builder().delay(Duration.ofHours(1)).build()).id());
		}

		browser.open(base + "/#/queue/mailer/dead?order=newest");
		browser.until((d) -> d.findElements(By.cssSelector("#jobs input[data-select]")).size() == 4);
		browser.clickUntil("#jobs input[data-select='all']", (d) -> "3 selected".equals(d.findElement(By.id("bulk-count")).getText()));
		browser.screenshot("dashboard-bulk");
		browser.clickAndConfirm("button[data-action='bulk-retry']");
		await().atMost(Duration.ofSeconds(30)).until(() -> this.admin.counts("mailer").dead() == 0);
		assertThat(this.admin.counts("mailer").ready()).isEqualTo(3);
		assertThat(output).contains("ran 'bulk retry' on queue 'mailer', jobs " + dead);

		browser.open(base + "/#/queue/mailer/delayed");
		for (String id : delayed.subList(0, 2)) {
			browser.clickUntil("#jobs input[data-select='" + id + "']",
					(d) -> d.findElement(By.cssSelector("#jobs input[data-select='" + id + "']")).isSelected());
		}
		browser.waitForText("#bulk-count", "2 selected");
		browser.clickAndConfirm("button[data-action='bulk-promote']");
		await().atMost(Duration.ofSeconds(30)).until(() -> this.admin.counts("mailer").delayed() == 1);
		assertThat(this.admin.job("mailer", delayed.get(0)).orElseThrow().state()).isEqualTo(JobState.READY);
		assertThat(this.admin.job("mailer", delayed.get(2)).orElseThrow().state()).isEqualTo(JobState.DELAYED);

		String last = delayed.get(2);
		browser.until((d) -> d.findElements(By.cssSelector("#jobs tr[data-job]")).size() == 1);
		browser.clickUntil("#jobs input[data-select='" + last + "']",
				(d) -> d.findElement(By.cssSelector("#jobs input[data-select='" + last + "']")).isSelected());
		browser.clickAndConfirm("button[data-action='bulk-delete']");
		await().atMost(Duration.ofSeconds(30)).until(() -> this.admin.job("mailer", last).isEmpty());
	}

	@Test
	void bulkActionsRefuseMoreThanAHundredIdsAndCheckEveryIdBeforeActing() {
		String dead = this.queues.enqueue("outbox", "x").id();
		this.queues.deadLetter("outbox", this.queues.reserve("outbox", 1, Duration.ofMinutes(1)).get(0).ref(), "no");

		String many = IntStream.rangeClosed(1, 101).mapToObj((i) -> "\"" + i + "\"").collect(Collectors.joining(","));
		HttpResponse<String> tooMany = postJson(base + "/api/queues/outbox/bulk/retry", "{\"ids\":[" + many + "]}");
		assertThat(tooMany.statusCode()).isEqualTo(400);
		assertThat(tooMany.body()).contains("at most 100");

		// a valid dead id followed by a bad one: nothing is retried
		HttpResponse<String> bad = postJson(base + "/api/queues/outbox/bulk/retry",
				"{\"ids\":[\"" + dead + "\",\"07\"]}");
		assertThat(bad.statusCode()).isEqualTo(400);
		assertThat(bad.body()).contains("'07' is invalid");
		HttpResponse<String> twice = postJson(base + "/api/queues/outbox/bulk/delete",
				"{\"ids\":[\"" + dead + "\",\"" + dead + "\"]}");
		assertThat(twice.statusCode()).isEqualTo(400);
		HttpResponse<String> unknown = postJson(base + "/api/queues/outbox/bulk/explode", "{\"ids\":[\"" + dead + "\"]}");
		assertThat(unknown.statusCode()).isEqualTo(400);
		assertThat(this.admin.job("outbox", dead).orElseThrow().state()).isEqualTo(JobState.DEAD);

		HttpResponse<String> ok = postJson(base + "/api/queues/outbox/bulk/retry", "{\"ids\":[\"" + dead + "\",\"999999\"]}");
		assertThat(ok.statusCode()).isEqualTo(200);
		assertThat(ok.body()).contains("\"changed\":1").contains("\"unchanged\":[\"999999\"]");
		assertThat(this.admin.job("outbox", dead).orElseThrow().state()).isEqualTo(JobState.READY);
	}

	@Test
	void aBulkDeleteOfDeadJobsLeavesAloneTheJobsRetriedMeanwhile() {
		List<String> dead = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			dead.add(this.queues.enqueue("ledger", "x" + i).id());
		}
		for (ReservedJob job : this.queues.reserve("ledger", 3, Duration.ofMinutes(1))) {
			this.queues.deadLetter("ledger", job.ref(), "no");
		}
		String delayed = this.queues.enqueue("ledger", "later", JobOptions.builder().delay(Duration.ofHours(1)).build())
			.id();
		String ids = dead.stream().map((id) -> "\"" + id + "\"").collect(Collectors.joining(","));
		assertThat(this.admin.retryAllDead("ledger")).isEqualTo(3);

		HttpResponse<String> stale = postJson(base + "/api/queues/ledger/bulk/delete",
				"{\"ids\":[" + ids + "],\"state\":\"dead\"}");
		assertThat(stale.statusCode()).isEqualTo(200);
		assertThat(stale.body()).contains("\"changed\":0").contains("\"unchanged\":[" + ids + "]");
		HttpResponse<String> asDelayed = postJson(base + "/api/queues/ledger/bulk/delete",
				"{\"ids\":[" + ids + ",\"" + delayed + "\"],\"state\":\"delayed\"}");
		assertThat(asDelayed.body()).contains("\"changed\":1").contains("\"unchanged\":[" + ids + "]");
		assertThat(postJson(base + "/api/queues/ledger/bulk/delete", "{\"ids\":[" + ids + "]}").statusCode())
			.isEqualTo(400);

		assertThat(dead).allSatisfy((id) -> assertThat(this.admin.job("ledger", id).orElseThrow().state())
			.isEqualTo(JobState.READY));
		assertThat(this.admin.job("ledger", delayed)).isEmpty();
		assertThat(this.admin.counts("ledger").ready()).isEqualTo(3);
	}

	static HttpResponse<String> postJson(String url, String body, String... headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
			.header("Accept", "application/json")
			.header("Content-Type", "application/json")
			.header(DashboardAccess.ACTION_HEADER, "1");
		if (headers.length > 0) {
			request.headers(headers);
		}
		try {
			return HttpClient.newHttpClient().send(request.POST(HttpRequest.BodyPublishers.ofString(body)).build(),
					HttpResponse.BodyHandlers.ofString());
		}
		catch (Exception ex) {
			throw new IllegalStateException("Request " + url + " failed", ex);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class PagesApp {

		@Bean
		Schedules schedules() {
			return new Schedules();
		}

	}

	static class Schedules {

		@RecurringJob(cron = "0 0 3 * * *", queue = "digests", zone = "Europe/Paris", name = "nightly-digest",
				missed = "skip")
		String nightly(Instant tick) {
			return "digest for " + tick;
		}

		@RecurringJob(cron = "* * * * * *", queue = "pulses", name = "heartbeat")
		String pulse(Instant tick) {
			return "pulse " + tick;
		}

	}

}
