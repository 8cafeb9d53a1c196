package io.github.redisqueue.autoconfigure.metrics;

import io.github.redisqueue.autoconfigure.QueueAutoConfiguration;
import io.github.redisqueue.core.JobEvents;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.metrics.MicrometerJobEvents;
import io.github.redisqueue.core.metrics.QueueMetricsBinder;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the queue meters: the gauges of a {@link QueueMetricsBinder} bean, which
 * Spring Boot binds to every meter registry, and the outcome counters of
 * {@link MicrometerJobEvents}. The gauges' settings are under {@code queue.metrics.*}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(QueueAdminOperations.class)
@EnableConfigurationProperties(QueueMetricsProperties.class)
public final class QueueMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	JobEvents queueJobEvents(ObjectProvider<MeterRegistry> registries) {
		// looked up at the first event: the registry binds QueueMetricsBinder, which needs the template
		return new MicrometerJobEvents(registries::getIfUnique);
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	QueueMetricsBinder queueMetricsBinder(QueueAdminOperations queueAdmin, QueueMetricsProperties properties) {
		return new QueueMetricsBinder(queueAdmin, properties.getRefreshInterval());
	}

}
