package io.github.redisqueue.autoconfigure.health;

import java.util.List;

import io.github.redisqueue.autoconfigure.QueueAutoConfiguration;
import io.github.redisqueue.config.QueueListenerEndpointRegistry;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.health.QueueHealthIndicator;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code queue} health component, with its settings under
 * {@code queue.health.*}; switched off with {@code management.health.queue.enabled=false}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnClass(AbstractHealthIndicator.class)
@ConditionalOnBean(QueueAdminOperations.class)
@EnableConfigurationProperties(QueueHealthIndicatorProperties.class)
public final class QueueHealthContributorAutoConfiguration {

	@Bean(name = "queueHealthIndicator")
	@ConditionalOnEnabledHealthIndicator("queue")
	@ConditionalOnMissingBean(name = "queueHealthIndicator")
	QueueHealthIndicator queueHealthIndicator(QueueAdminOperations queueAdmin, QueueHealthIndicatorProperties health,
			ObjectProvider<QueueListenerEndpointRegistry> endpointRegistry) {
		return new QueueHealthIndicator(queueAdmin,
				new QueueHealthIndicator.Thresholds(health.getMaxDead(), health.getMaxReady(), health.getMaxHeadAge(),
						health.getThresholdStatus()),
				health.getTimeout(), () -> {
					QueueListenerEndpointRegistry registry = endpointRegistry.getIfAvailable();
					return (registry != null) ? registry.getListenerContainers() : List.of();
				});
	}

}
