package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.actuate.endpoint.JobDescriptor;
import io.github.redisqueue.actuate.endpoint.QueuesEndpoint;
import io.github.redisqueue.annotation.QueueListener;
import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.Acknowledgement;
import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Progress reported by a {@code @QueueListener} handler through its {@link Acknowledgement}: read
 * back through the admin API and the {@code queues} endpoint while the job runs, gone once it
 * completed.
 */
class JobProgressIntegrationTests {

	private final RedisEndpoint redis = TestRedis.shared();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
				QueueListenerAutoConfiguration.class))
		.withPropertyValues(TestRedis.springProperties(this.redis))
		.withPropertyValues("queue.listener.poll-interval=200ms", "queue.retention.completed=1h");

	@BeforeEach
	void flush() {
		TestRedis.flushAll(this.redis);
	}

	@Test
	void progressOfARunningHandlerIsReadBackAndClearedWhenItCompletes() {
		this.contextRunner.withUserConfiguration(ReportBuilder.class).run((context) -> {
			QueueTemplate queues = context.getBean(QueueTemplate.class);
			QueueAdminOperations admin = context.getBean(QueueAdminOperations.class);
			QueuesEndpoint endpoint = new QueuesEndpoint(admin);
			ReportBuilder builder = context.getBean(ReportBuilder.class);
			String id = queues.enqueue("reports", "monthly").id();

			assertThat(builder.halfway.await(10, TimeUnit.SECONDS)).isTrue();
			JobInfo running = admin.job("reports", id).orElseThrow();
			assertThat(running.state()).isEqualTo(JobState.ACTIVE);
			assertThat(running.progress()).isEqualTo("{\"done\":1,\"of\":2}");
			Object viaEndpoint = endpoint.part("reports", "jobs", id);
			assertThat(viaEndpoint).isInstanceOfSatisfying(JobDescriptor.class, (job) -> {
				assertThat(job.state()).isEqualTo(JobState.ACTIVE);
				assertThat(job.attempts()).isZero();
				assertThat(job.progress()).isEqualTo("{\"done\":1,\"of\":2}");
				assertThat(job.payload()).isEqualTo("\"monthly\"");
			});
			builder.proceed.countDown();

			await().atMost(Duration.ofSeconds(10))
				.until(() -> admin.job("reports", id).orElseThrow().state() == JobState.COMPLETED);
			assertThat(builder.written).containsExactly(true, true);
			assertThat(admin.job("reports", id).orElseThrow().progress()).isNull();
			assertThat(endpoint.job("reports", id)).satisfies((job) -> {
				assertThat(job.state()).isEqualTo(JobState.COMPLETED);
				assertThat(job.progress()).isNull();
			});
			assertThat(endpoint.part("reports", "jobs", "999")).as("no such job: 404").isNull();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class ReportBuilder {

		final CountDownLatch halfway = new CountDownLatch(1);

		final CountDownLatch proceed = new CountDownLatch(1);

		final List<Boolean> written = new CopyOnWriteArrayList<>();

		@QueueListener(queue = "reports", id = "reports")
		void build(String report, Acknowledgement acknowledgement) throws InterruptedException {
			this.written.add(acknowledgement.progress(new Step(1, 2)));
			this.halfway.countDown();
			this.proceed.await(10, TimeUnit.SECONDS);
			this.written.add(acknowledgement.progress(new Step(2, 2)));
		}

	}

	record Step(int done, int of) {

	}

}
