package io.github.redisqueue.dashboard;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import io.github.redisqueue.core.BatchState;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static io.github.redisqueue.dashboard.DashboardPagesBrowserTests.postJson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The new pages' actions (cancel a batch, bulk retry, delete and run now) under the dashboard's
 * rules: with Spring Security they need the role and the CSRF token (which the page sends), and
 * read-only mode refuses them and shows none of them.
 */
@Tag("browser")
@ExtendWith(OutputCaptureExtension.class)
class DashboardPagesSecurityTests {

	@BeforeEach
	void flush() {
		TestRedis.flushAll(TestRedis.shared());
	}

	@Test
	void bulkActionsAndBatchCancelNeedTheRoleAndTheCsrfToken(CapturedOutput output) {
		try (ConfigurableApplicationContext app = DashboardApps.start(DashboardSecurityTests.SecuredApp.class,
				"queue.dashboard.role=QUEUE_ADMIN")) {
			String base = DashboardApps.base(app);
			QueueTemplate queues = app.getBean(QueueTemplate.class);
			QueueAdmin admin = app.getBean(QueueAdmin.class);
			String dead = deadJob(queues, "orders");
			queues.batch("orders").id("b-1").addAll(List.of(1, 2)).submit();

			String bulk = base + "/api/queues/orders/bulk/retry";
			String body = "{\"ids\":[\"" + dead + "\"]}";
			String cancel = base + "/api/queues/orders/batches/b-1/cancel";
			assertThat(postJson(bulk, body).statusCode()).isIn(401, 403);
			assertThat(postJson(bulk, body, "Authorization", basic("viewer", "viewer-secret")).statusCode()).isIn(401, 403);
			// the operator without the CSRF token: Spring Security's filter refuses it
			assertThat(postJson(bulk, body, "Authorization", basic("ops", "ops-secret")).statusCode()).isIn(401, 403);
			assertThat(postJson(cancel, "", "Authorization", basic("ops", "ops-secret")).statusCode()).isIn(401, 403);
			assertThat(DashboardApps.get(base + "/api/batches/orders", "viewer", "viewer-secret").statusCode())
				.isEqualTo(403);
			assertThat(admin.job("orders", dead).orElseThrow().state()).isEqualTo(JobState.DEAD);
			assertThat(admin.batch("orders", "b-1").orElseThrow().state()).isEqualTo(BatchState.SEALED);

			try (Browser browser = Browser.start()) {
				browser.open(base + "/");
				browser.find("input[name='username']").sendKeys("ops");
				browser.find("input[name='password']").sendKeys("ops-secret");
				browser.find("button[type='submit']").click();
				browser.waitForText("#user", "ops");
				browser.open(base + "/#/queue/orders/dead?order=newest");
				browser.clickUntil("#jobs input[data-select='" + dead + "']",
						(d) -> d.findElement(By.cssSelector("#jobs input[data-select='" + dead + "']")).isSelected());
				browser.clickAndConfirm("button[data-action='bulk-retry']");
				await().atMost(Duration.ofSeconds(30))
					.until(() -> admin.job("orders", dead).orElseThrow().state() == JobState.READY);

				browser.open(base + "/#/batches/orders");
				browser.clickAndConfirm("#open-batches tr[data-batch='b-1'] button[data-action='cancel-batch']");
				await().atMost(Duration.ofSeconds(30))
					.until(() -> admin.batch("orders", "b-1").orElseThrow().isFinished());
				assertThat(browser.driver().findElements(By.cssSelector("#flash.error"))).isEmpty();
			}
			assertThat(output).containsPattern("user 'ops' \\(127\\.0\\.0\\.1\\) ran 'bulk retry' on queue 'orders', "
					+ "jobs \\[" + dead + "\\]: 1 of 1 job\\(s\\) put back in the queue");
			assertThat(output).contains("user 'ops' (127.0.0.1) ran 'cancel batch' on queue 'orders', batch b-1");
		}
	}

	@Test
	void readOnlyDashboardRefusesTheNewActionsAndShowsNone() {
		try (ConfigurableApplicationContext app = DashboardApps.start(DashboardBrowserTests.DashboardApp.class,
				DashboardApps.NO_SECURITY, "queue.dashboard.read-only=true", "queue.listener.auto-startup=false")) {
			String base = DashboardApps.base(app);
			QueueTemplate queues = app.getBean(QueueTemplate.class);
			QueueAdmin admin = app.getBean(QueueAdmin.class);
			String dead = deadJob(queues, "returns");
			queues.batch("returns").id("b-2").addAll(List.of(1)).submit();

			for (String action : new String[] { "retry", "delete", "promote" }) {
				HttpResponse<String> refused = postJson(base + "/api/queues/returns/bulk/" + action,
						"{\"ids\":[\"" + dead + "\"]}");
				assertThat(refused.statusCode()).as(action).isEqualTo(403);
				assertThat(refused.body()).contains("read-only");
			}
			assertThat(postJson(base + "/api/queues/returns/batches/b-2/cancel", "").statusCode()).isEqualTo(403);
			assertThat(admin.job("returns", dead).orElseThrow().state()).isEqualTo(JobState.DEAD);
			assertThat(admin.batch("returns", "b-2").orElseThrow().isFinished()).isFalse();

			try (Browser browser = Browser.start()) {
				browser.open(base + "/#/queue/returns/dead?order=newest");
				browser.find("#jobs tr[data-job='" + dead + "']");
				browser.waitForText("#mode", "read-only");
				browser.open(base + "/#/batches/returns");
				browser.find("#open-batches tr[data-batch='b-2']");
				assertThat(browser.driver().findElements(By.cssSelector("[data-action], input[data-select]"))).isEmpty();
			}
		}
	}

	private static String deadJob(QueueTemplate queues, String queue) {
		String id = queues.enqueue(queue, "x").id();
		ReservedJob job = queues.reserve(queue, 1, Duration.ofMinutes(1)).get(0);
		queues.deadLetter(queue, job.ref(), "refused");
		return id;
	}

	private static String basic(String user, String password) {
		return "Basic " + java.util.Base64.getEncoder()
			.encodeToString((user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));
	}

}
