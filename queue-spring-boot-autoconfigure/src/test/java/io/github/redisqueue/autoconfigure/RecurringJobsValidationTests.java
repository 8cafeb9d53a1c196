package io.github.redisqueue.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Schedules that cannot work are refused when the context starts, naming the property, its value
 * and the rule; no Redis is contacted.
 */
class RecurringJobsValidationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
				QueueScheduleAutoConfiguration.class))
		.withPropertyValues("queue.schedules.digest.cron=0 * * * * *", "queue.schedules.digest.queue=emails");

	@Test
	void aValidScheduleIsAccepted() {
		this.contextRunner
			.withPropertyValues("queue.schedules.digest.zone=Europe/Paris", "queue.schedules.digest.missed=skip",
					"queue.schedules.digest.grace=2s")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void cronMustBeSixFieldsSecondsFirst() {
		refused("queue.schedules.digest.cron=* * * * *", "queue.schedules.[digest].cron is '* * * * *'",
				"not a valid cron expression (six fields, seconds first");
		refused("queue.schedules.digest.cron=", "queue.schedules.[digest].cron is nothing", "a cron expression is required");
	}

	@Test
	void queueMustBeAValidQueueName() {
		refused("queue.schedules.digest.queue=-emails", "queue.schedules.[digest].queue is '-emails'",
				"a queue name has 1 to 100 characters");
		refused("queue.schedules.digest.queue=", "queue.schedules.[digest].queue is nothing", "queue the jobs go to is required");
	}

	@Test
	void zoneMustBeATimeZone() {
		refused("queue.schedules.digest.zone=Mars/Olympus", "queue.schedules.[digest].zone is 'Mars/Olympus'",
				"it is not a time zone");
	}

	@Test
	void missedIsFireOnceOrSkip() {
		refused("queue.schedules.digest.missed=catch-up", "queue.schedules.[digest].missed is 'catch-up'",
				"it must be fire-once or skip");
	}

	@Test
	void graceFrom0To1Day() {
		refused("queue.schedules.digest.grace=2d", "queue.schedules.[digest].grace is PT48H", "it must be from 0s to 1d");
	}

	private void refused(String property, String... expected) {
		this.contextRunner.withPropertyValues(property).run((context) -> {
			assertThat(context).as(property).hasFailed();
			Throwable cause = NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure());
			assertThat(cause.getMessage()).as(property).contains(expected);
		});
	}

}
