package io.github.redisqueue.autoconfigure;

import io.github.redisqueue.core.QueueTemplate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Settings that cannot work are refused when the context starts, with the property, its value
 * and the allowed range; values at the edges of each range are accepted. No Redis is contacted.
 */
@ExtendWith(OutputCaptureExtension.class)
class QueuePropertiesValidationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
				QueueListenerAutoConfiguration.class, QueueReaperAutoConfiguration.class));

	@Test
	void reaperBatchFrom1To10000() {
		refused("queue.reaper.batch=10001", "queue.reaper.batch is 10001", "must be from 1 to 10000");
		refused("queue.reaper.batch=0", "queue.reaper.batch is 0", "must be from 1 to 10000");
		accepted("queue.reaper.batch=10000");
		accepted("queue.reaper.batch=1");
	}

	@Test
	void rateLimitIsParsedStrictlyAndNamesTheProperty() {
		String rule = "it must be <permits>/<window>, permits from 1 to 10000";
		refused("queue.queues.mail.rate-limit=100", "queue.queues.[mail].rate-limit is '100'", rule);
		refused("queue.queues.mail.rate-limit=100/s", "queue.queues.[mail].rate-limit is '100/s'", rule);
		refused("queue.queues.mail.rate-limit=100 / 1s", "queue.queues.[mail].rate-limit is '100 / 1s'", rule);
		refused("queue.queues.mail.rate-limit=1.5/1s", "queue.queues.[mail].rate-limit is '1.5/1s'", rule);
		refused("queue.queues.mail.rate-limit=0/1s", "queue.queues.[mail].rate-limit is '0/1s'", rule);
		refused("queue.queues.mail.rate-limit=10001/1s", "queue.queues.[mail].rate-limit is '10001/1s'", rule);
		refused("queue.queues.mail.rate-limit=5/0s", "queue.queues.[mail].rate-limit is '5/0s'", rule);
		refused("queue.queues.mail.rate-limit=5/2d", "queue.queues.[mail].rate-limit is '5/2d'", rule);
		refused("queue.queues.mail.rate-limit=5/1S", "queue.queues.[mail].rate-limit is '5/1S'", rule);
		refused(new String[] { "queue.queues.mail.rate-limit=5/1s", "queue.queues.mail.partitions=2" },
				"queue.queues.[mail].rate-limit is 5/1s", "a partitioned queue cannot have a rate limit");
		accepted("queue.queues.mail.rate-limit=10000/1d");
		accepted("queue.queues.mail.rate-limit=1/1ms");
		accepted("queue.queues.[mail.out].rate-limit=1000/1m", "queue.queues.other.rate-limit=100/250ms");
	}

	@Test
	void listenerConcurrencyFrom1To1000() {
		refused("queue.listener.concurrency=1001", "queue.listener.concurrency is 1001", "must be from 1 to 1000");
		refused("queue.listener.concurrency=0", "queue.listener.concurrency is 0", "must be from 1 to 1000");
		refused("queue.queues.emails.concurrency=5000", "queue.queues.[emails].concurrency is 5000",
				"must be from 1 to 1000");
		accepted("queue.listener.concurrency=1000");
	}

	@Test
	void concurrencyPlusPrefetchAtMost10000PerListenerAndPerQueue() {
		refused(new String[] { "queue.listener.concurrency=1000", "queue.listener.prefetch=9500" },
				"queue.listener.prefetch is 9500",
				"concurrency + prefetch (an unset prefetch adapts up to 16 per thread, at most 256) must be at most 10000, "
						+ "here 1000 + 9500 = 10500");
		accepted("queue.listener.concurrency=1000", "queue.listener.prefetch=9000");
		refused(new String[] { "queue.listener.prefetch=9500", "queue.queues.mail.concurrency=600" },
				"queue.queues.[mail].concurrency is 600", "here 600 + 9500 = 10100");
		refused(new String[] { "queue.queues.[mail.out].concurrency=1000", "queue.queues.[mail.out].prefetch=9001" },
				"queue.queues.[mail.out].prefetch is 9001", "here 1000 + 9001 = 10001");
		refused("queue.listener.prefetch=10001", "queue.listener.prefetch is 10001", "must be from 0 to 10000");
		accepted("queue.queues.[mail.out].concurrency=1000", "queue.queues.[mail.out].prefetch=9000");
	}

	@Test
	void leaseFrom100MillisecondsTo7Days() {
		refused("queue.listener.lease=8d", "queue.listener.lease is PT192H", "must be from 100ms to 7d");
		refused("queue.listener.lease=99ms", "queue.listener.lease is PT0.099S", "must be from 100ms to 7d");
		refused("queue.queues.emails.lease=30d", "queue.queues.[emails].lease is PT720H", "must be from 100ms to 7d");
		accepted("queue.listener.lease=7d", "queue.queues.emails.lease=100ms");
	}

	@Test
	void maxAttemptsFrom1To10000() {
		refused("queue.default-max-attempts=0", "queue.default-max-attempts is 0", "must be from 1 to 10000");
		refused("queue.default-max-attempts=10001", "queue.default-max-attempts is 10001", "must be from 1 to 10000");
		refused("queue.max-attempts=0", "queue.default-max-attempts is 0", "must be from 1 to 10000");
		refused("queue.listener.max-attempts=0", "queue.listener.max-attempts is 0", "must be from 1 to 10000");
		refused("queue.listener.max-attempts=20000", "queue.listener.max-attempts is 20000", "must be from 1 to 10000");
		refused("queue.queues.emails.max-attempts=0", "queue.queues.[emails].max-attempts is 0", "must be from 1 to 10000");
		accepted("queue.default-max-attempts=10000", "queue.listener.max-attempts=10000",
				"queue.queues.emails.max-attempts=1");
		accepted("queue.max-attempts=10000");
	}

	@Test
	void workerIdHas1To200CharactersWithoutHash() {
		refused("queue.worker-id=pod#2", "queue.worker-id is pod#2", "have no '#'");
		refused("queue.worker-id=" + "w".repeat(201), "queue.worker-id is www", "1 to 200 characters");
		refused("queue.worker-id=  ", "queue.worker-id is", "not be blank");
		accepted("queue.worker-id=" + "w".repeat(200));
	}

	@Test
	void pollIntervalAndShutdownTimeoutAndNames() {
		refused("queue.listener.poll-interval=1m", "queue.listener.poll-interval is PT1M", "must be from 10ms to 30s");
		refused("queue.queues.emails.shutdown-timeout=-1s", "queue.queues.[emails].shutdown-timeout is PT-1S",
				"must be 0s or more");
		refused("queue.queues.[bad name].concurrency=2", "queue.queues.[bad name] names an invalid queue 'bad name'",
				"letters, digits, '.', '_' or '-'");
		refused("queue.key-prefix=a:b", "queue.key-prefix is a:b", "start with a letter or digit");
	}

	@Test
	void enqueueTimeoutFrom1MillisecondTo10Minutes() {
		refused("queue.enqueue-timeout=0ms", "queue.enqueue-timeout is PT0S", "must be from 1ms to 10m");
		refused("queue.enqueue-timeout=11m", "queue.enqueue-timeout is PT11M", "must be from 1ms to 10m");
		accepted("queue.enqueue-timeout=10m");
	}

	@Test
	void pollIntervalMustBeShorterThanTheRedisCommandTimeout() {
		refused(new String[] { "spring.data.redis.timeout=1s" }, "queue.listener.poll-interval (PT1S) must be shorter "
				+ "than the Redis command timeout", "spring.data.redis.timeout", "PT1S");
		refused(new String[] { "spring.data.redis.timeout=2s", "queue.queues.[mail.out].poll-interval=3s" },
				"queue.queues.[mail.out].poll-interval (PT3S) must be shorter than the Redis command timeout");
		accepted("spring.data.redis.timeout=1100ms");
		accepted("spring.data.redis.timeout=2s", "queue.listener.poll-interval=1900ms");
	}

	@Test
	void resultRetentionFrom0To3650Days() {
		refused("queue.result-retention=-1s", "queue.result-retention is PT-1S", "must be from 0s to 3650d");
		refused("queue.result-retention=3651d", "queue.result-retention is PT87624H", "must be from 0s to 3650d");
		accepted("queue.result-retention=0s");
		accepted("queue.result-retention=3650d");
	}

	@Test
	void maxResultSizeFrom1ByteTo2Gigabytes() {
		refused("queue.max-result-size=0B", "queue.max-result-size is 0B", "must be from 1B to 2147483647B");
		refused("queue.max-result-size=2GB", "queue.max-result-size is 2147483648B", "must be from 1B to 2147483647B");
		accepted("queue.max-result-size=1B");
	}

	@Test
	void batchRetentionFrom1MillisecondTo3650Days() {
		refused("queue.batch-retention=0s", "queue.batch-retention is PT0S", "must be from 1ms to 3650d");
		refused("queue.batch-retention=3651d", "queue.batch-retention is PT87624H", "must be from 1ms to 3650d");
		accepted("queue.batch-retention=1ms", "queue.result-retention=1ms");
		accepted("queue.batch-retention=3650d");
	}

	@Test
	void groupConcurrencyFrom1To1000DefaultAndPerQueue() {
		refused("queue.default-group-concurrency=0", "queue.default-group-concurrency is 0", "must be from 1 to 1000");
		refused("queue.default-group-concurrency=1001", "queue.default-group-concurrency is 1001",
				"must be from 1 to 1000");
		refused("queue.queues.reports.group-concurrency=0", "queue.queues.[reports].group-concurrency is 0",
				"must be from 1 to 1000");
		refused("queue.queues.[mail.out].group-concurrency=1001", "queue.queues.[mail.out].group-concurrency is 1001",
				"must be from 1 to 1000");
		refused("queue.queues.[bad name].group-concurrency=2",
				"queue.queues.[bad name] names an invalid queue 'bad name'");
		accepted("queue.default-group-concurrency=1000", "queue.queues.reports.group-concurrency=1");
		accepted("queue.default-group-concurrency=1", "queue.queues.reports.group-concurrency=1000");
	}

	@Test
	void everyProblemIsReportedAtOnce() {
		refused(new String[] { "queue.reaper.batch=20000", "queue.listener.lease=8d", "queue.worker-id=a#b" },
				"queue.reaper.batch is 20000", "queue.listener.lease is PT192H", "queue.worker-id is a#b");
	}

	@Test
	void applicationFailsToStartWithTheFailureAnalysisNamingPropertyValueAndRange(CapturedOutput output) {
		SpringApplication application = new SpringApplication(QueueApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--queue.reaper.batch=20000"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Property: queue.reaper.batch")
			.contains("Value: \"20000\"")
			.contains("it must be from 1 to 10000");
	}

	private void refused(String property, String... expected) {
		refused(new String[] { property }, expected);
	}

	private void refused(String[] properties, String... expected) {
		this.contextRunner.withPropertyValues(properties).run((context) -> {
			assertThat(context).as("%s", (Object) properties).hasFailed();
			Throwable cause = NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure());
			assertThat(cause.getMessage()).as("%s", (Object) properties).contains(expected);
		});
	}

	private void accepted(String... properties) {
		this.contextRunner.withPropertyValues(properties).run((context) -> check(context, properties));
	}

	private static void check(AssertableApplicationContext context, String[] properties) {
		assertThat(context).as("%s", (Object) properties).hasNotFailed().hasSingleBean(QueueTemplate.class);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, QueueAutoConfiguration.class })
	static class QueueApplication {

	}

}
