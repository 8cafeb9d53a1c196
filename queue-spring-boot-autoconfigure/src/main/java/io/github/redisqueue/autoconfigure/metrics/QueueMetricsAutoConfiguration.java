package io.github.redisqueue.autoconfigure.metrics;

import io.github.redisqueue.autoconfigure.QueueAutoConfiguration;
import io.github.redisqueue.autoconfigure.QueueProperties;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.support.micrometer.QueueMetricsBinder;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the queue gauges: a {@link QueueMetricsBinder} bean, which Spring Boot
 * binds to every meter registry.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(QueueTemplate.class)
public final class QueueMetricsAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	QueueMetricsBinder queueMetricsBinder(QueueTemplate queueTemplate, QueueProperties properties) {
		return new QueueMetricsBinder(queueTemplate, properties.getMetrics().getRefreshInterval());
	}

}
