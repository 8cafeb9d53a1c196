package io.github.redisqueue.listener.lease;

import java.time.Duration;

import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The reaper runs every interval it was given, on the application's scheduler under
 * {@code @EnableScheduling} or on a scheduler of its own, never on both.
 */
class QueueReaperSchedulingIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration INTERVAL = Duration.ofMillis(100);

	@Test
	void runsEveryIntervalOnTheApplicationsSchedulerUnderEnableScheduling() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.registerBean(RedisConnectionFactory.class, () -> this.connectionFactory);
			context.register(SchedulingApp.class);
			context.refresh();
			QueueReaper reaper = context.getBean(QueueReaper.class);
			assertThat(reaper.isSelfScheduled()).isFalse();
			// passes run on the application's scheduler: nothing else schedules this reaper
			await().atMost(Duration.ofSeconds(60)).until(() -> reaper.getPasses() >= 3);
		}
	}

	@Test
	void registersOneTaskOfItsIntervalUnlessItSchedulesItself() {
		QueueReaper reaper = new QueueReaper(new QueueAdmin(new QueueTemplate(this.connectionFactory)), INTERVAL);
		ScheduledTaskRegistrar registrar = new ScheduledTaskRegistrar();
		reaper.configureTasks(registrar);
		assertThat(registrar.getFixedDelayTaskList()).singleElement().satisfies((task) -> {
			assertThat(((FixedDelayTask) task).getIntervalDuration()).isEqualTo(INTERVAL);
			assertThat(((FixedDelayTask) task).getInitialDelayDuration()).isEqualTo(INTERVAL);
		});

		reaper.setTaskScheduler(new ThreadPoolTaskScheduler());
		ScheduledTaskRegistrar other = new ScheduledTaskRegistrar();
		reaper.configureTasks(other);
		assertThat(other.hasTasks()).isFalse();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class SchedulingApp {

		@Bean
		QueueTemplate queueTemplate(RedisConnectionFactory connectionFactory) {
			return new QueueTemplate(connectionFactory);
		}

		@Bean
		QueueReaper queueReaper(QueueTemplate queueTemplate) {
			return new QueueReaper(new QueueAdmin(queueTemplate), INTERVAL);
		}

	}

}
