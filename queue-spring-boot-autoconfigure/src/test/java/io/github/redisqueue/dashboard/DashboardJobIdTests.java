package io.github.redisqueue.dashboard;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's API refuses a job id that is not the canonical decimal the queue handed out
 * (400, naming the rule) before it acts: {@code 05} must not reach job 5.
 */
class DashboardJobIdTests {

	@Test
	void jobIdsThatAreNotCanonicalDecimalsAreABadRequestAndChangeNothing() {
		TestRedis.flushAll(TestRedis.shared());
		try (ConfigurableApplicationContext app = DashboardApps.start(App.class, DashboardApps.NO_SECURITY)) {
			String base = DashboardApps.base(app);
			QueueTemplate queues = app.getBean(QueueTemplate.class);
			QueueAdmin admin = app.getBean(QueueAdmin.class);
			queues.enqueueAll("ids", List.of(1, 2, 3, 4), JobOptions.defaults());
			String delayed = queues.enqueue("ids", 5, JobOptions.builder().delay(Duration.ofHours(1)).build()).id();
			assertThat(delayed).isEqualTo("5");

			for (String bad : List.of("05", "1a", "%2B5", "%205", "-5")) {
				HttpResponse<String> read = DashboardApps.get(base + "/api/queues/ids/jobs/" + bad, null, null);
				assertThat(read.statusCode()).as(bad).isEqualTo(400);
				assertThat(read.body()).as(bad).contains("Job id");
				for (String action : List.of("promote", "delete", "retry")) {
					HttpResponse<String> act = DashboardApps.post(base + "/api/queues/ids/jobs/" + bad + "/" + action,
							null, null, "X-Queue-Dashboard", "1");
					assertThat(act.statusCode()).as(action + " " + bad).isEqualTo(400);
					assertThat(act.body()).as(action + " " + bad).contains("Job id");
				}
			}

			assertThat(admin.job("ids", delayed).orElseThrow().state()).isEqualTo(JobState.DELAYED);
			assertThat(admin.counts("ids").delayed()).isEqualTo(1);
			assertThat(admin.counts("ids").ready()).isEqualTo(4);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

	}

}
