package io.github.redisqueue.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.ZoneId;

import io.github.redisqueue.actuate.endpoint.QueueSchedulesEndpoint;
import io.github.redisqueue.annotation.RecurringJobAnnotationBeanPostProcessor;
import io.github.redisqueue.core.MissedTicks;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.schedule.RecurringJobDefinition;
import io.github.redisqueue.schedule.RecurringJobScheduler;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of recurring jobs: the {@link RecurringJobScheduler} of the schedules declared
 * under {@code queue.schedules.<name>} and of the
 * {@link io.github.redisqueue.annotation.RecurringJob &#64;RecurringJob} methods of the application's beans. Each instance fires the schedules it has
 * configured; Redis makes sure each tick enqueues one job whatever the number of instances.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnBean(QueueTemplate.class)
public final class QueueScheduleAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RecurringJobScheduler recurringJobScheduler(QueueTemplate queueTemplate, QueueProperties properties) {
		RecurringJobScheduler scheduler = new RecurringJobScheduler(queueTemplate);
		properties.getSchedules().forEach((name, schedule) -> scheduler.register(definition(name, schedule)));
		return scheduler;
	}

	@Bean
	@ConditionalOnMissingBean
	static RecurringJobAnnotationBeanPostProcessor recurringJobAnnotationBeanPostProcessor() {
		return new RecurringJobAnnotationBeanPostProcessor();
	}

	/** The {@code queueschedules} endpoint, when Actuator is present and the endpoint is available. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ConditionalOnAvailableEndpoint.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnAvailableEndpoint
		QueueSchedulesEndpoint queueSchedulesEndpoint(RecurringJobScheduler recurringJobScheduler) {
			return new QueueSchedulesEndpoint(recurringJobScheduler);
		}

	}

	/** A declared schedule (checked when the properties were bound); its payload is the text as is. */
	static RecurringJobDefinition definition(String name, QueueProperties.Schedule schedule) {
		byte[] payload = schedule.getPayload().getBytes(StandardCharsets.UTF_8);
		String zone = schedule.getZone();
		return new RecurringJobDefinition(name, schedule.getQueue(),
				RecurringJobDefinition.parseCron(name, schedule.getCron()),
				(zone != null) ? ZoneId.of(zone) : ZoneId.systemDefault(), MissedTicks.of(schedule.getMissed()),
				schedule.getGrace(), (tick) -> payload);
	}

}
