package io.github.redisqueue.dashboard;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueBatchException;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
import org.springframework.dao.QueryTimeoutException;

import static io.github.redisqueue.dashboard.DashboardPagesBrowserTests.postJson;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A dashboard action that fails part way (Redis times out on one job, a batch's record is gone
 * once the cancel ran) against a real Redis: the answer and the audit log say what was done.
 * The admin the dashboard uses fails on purpose for one job id and one batch id.
 */
@Tag("browser")
@ExtendWith(OutputCaptureExtension.class)
class DashboardActionFailureTests {

	private static volatile String failingJob = "";

	private static ConfigurableApplicationContext app;

	private static String base;

	@BeforeAll
	static void start() {
		TestRedis.flushAll(TestRedis.shared());
		app = DashboardApps.start(FailingAdminApp.class, DashboardApps.NO_SECURITY, "queue.listener.auto-startup=false");
		base = DashboardApps.base(app);
	}

	@AfterAll
	static void stop() {
		if (app != null) {
			app.close();
		}
	}

	@Test
	void aBulkActionGoesOnPastAFailedIdAndTheAnswerAndTheLogSayWhichFailed(CapturedOutput output) {
		QueueTemplate queues = app.getBean(QueueTemplate.class);
		QueueAdminOperations admin = app.getBean(QueueAdminOperations.class);
		List<String> dead = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			dead.add(queues.enqueue("flaky", "x" + i).id());
		}
		for (ReservedJob job : queues.reserve("flaky", 3, Duration.ofMinutes(1))) {
			queues.deadLetter("flaky", job.ref(), "no");
		}
		failingJob = dead.get(1);

		HttpResponse<String> answer = postJson(base + "/api/queues/flaky/bulk/retry",
				"{\"ids\":[\"" + String.join("\",\"", dead) + "\"]}");

		assertThat(answer.statusCode()).isEqualTo(200);
		assertThat(answer.body()).contains("\"changed\":2")
			.contains("\"failed\":[{\"id\":\"" + dead.get(1) + "\",\"error\":\"Redis timed out\"}]")
			.contains("1 failed");
		assertThat(admin.job("flaky", dead.get(0)).orElseThrow().state()).isEqualTo(JobState.READY);
		assertThat(admin.job("flaky", dead.get(1)).orElseThrow().state()).isEqualTo(JobState.DEAD);
		assertThat(admin.job("flaky", dead.get(2)).orElseThrow().state()).isEqualTo(JobState.READY);
		assertThat(output.getOut()).contains("ran 'bulk retry' on queue 'flaky', jobs " + dead
				+ ": 2 of 3 job(s) put back in the queue; 1 failed [" + dead.get(1) + " (Redis timed out)]");
	}

	@Test
	void aBatchWhoseRecordIsGoneOnceCancelledIsReportedCancelledAndLogged(CapturedOutput output) {
		QueueTemplate queues = app.getBean(QueueTemplate.class);
		queues.batch("flaky").id("gone-after-cancel").addAll(List.of(1, 2)).submit();

		HttpResponse<String> answer = postJson(base + "/api/queues/flaky/batches/gone-after-cancel/cancel", "");

		assertThat(answer.statusCode()).isEqualTo(200);
		assertThat(answer.body()).contains("is cancelled");
		assertThat(app.getBean(QueueAdminOperations.class).counts("flaky").openBatches()).isZero();
		assertThat(output.getOut()).contains("ran 'cancel batch' on queue 'flaky', batch gone-after-cancel: batch "
				+ "gone-after-cancel is cancelled");

		HttpResponse<String> missing = postJson(base + "/api/queues/flaky/batches/never-was/cancel", "");
		assertThat(missing.statusCode()).isEqualTo(400);
		assertThat(output.getOut()).contains("ran 'cancel batch' on queue 'flaky', batch never-was: no such batch");
	}

	@Test
	void afterABulkActionThatChangedNothingNoBoxStaysTicked() {
		QueueTemplate queues = app.getBean(QueueTemplate.class);
		String id = queues.enqueue("stuck", "x").id();
		queues.deadLetter("stuck", queues.reserve("stuck", 1, Duration.ofMinutes(1)).get(0).ref(), "no");
		failingJob = id;

		try (Browser browser = Browser.start()) {
			browser.open(base + "/#/queue/stuck/dead?order=newest");
			String box = "#jobs input[data-select='" + id + "']";
			browser.clickUntil(box, (d) -> d.findElement(By.cssSelector(box)).isSelected());
			browser.waitForText("#bulk-count", "1 selected");
			browser.clickAndConfirm("button[data-action='bulk-retry']");
			// the retry failed: the page's data is the same and is not drawn again
			browser.waitForText("#bulk-count", "0 selected");
			browser.until((d) -> !d.findElement(By.cssSelector(box)).isSelected()
					&& !d.findElement(By.cssSelector("button[data-action='bulk-retry']")).isEnabled());
		}
		assertThat(app.getBean(QueueAdminOperations.class).job("stuck", id).orElseThrow().state())
			.isEqualTo(JobState.DEAD);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class FailingAdminApp {

		/** The real admin, except that Redis "times out" on one job and a cancelled batch is "gone". */
		@Bean
		QueueAdminOperations queueAdmin(QueueTemplate template) {
			QueueAdmin real = new QueueAdmin(template);
			return (QueueAdminOperations) Proxy.newProxyInstance(QueueAdminOperations.class.getClassLoader(),
					new Class<?>[] { QueueAdminOperations.class }, (proxy, method, args) -> {
						if (method.getName().equals("retryDead") && failingJob.equals(args[1])) {
							throw new QueryTimeoutException("Redis timed out");
						}
						try {
							Object result = method.invoke(real, args);
							if (method.getName().equals("cancelBatch") && "gone-after-cancel".equals(args[1])) {
								throw QueueBatchException.missing((String) args[0], (String) args[1]);
							}
							return result;
						}
						catch (InvocationTargetException ex) {
							throw ex.getCause();
						}
					});
		}

	}

}
