package io.github.redisqueue.autoconfigure.endpoint;

import io.github.redisqueue.actuate.endpoint.QueuesEndpoint;
import io.github.redisqueue.actuate.endpoint.QueuesEndpointRuntimeHints;
import io.github.redisqueue.autoconfigure.QueueAutoConfiguration;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueSettings;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * Auto-configuration of the {@code queues} Actuator endpoint, when it is available (exposed
 * with {@code management.endpoints.web.exposure.include}).
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnClass(ConditionalOnAvailableEndpoint.class)
@ConditionalOnBean(QueueAdminOperations.class)
@ImportRuntimeHints(QueuesEndpointRuntimeHints.class)
public final class QueuesEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint
	QueuesEndpoint queuesEndpoint(QueueAdminOperations queueAdmin, ObjectProvider<QueueSettings> settings) {
		QueueSettings engine = settings.getIfUnique();
		return (engine != null) ? new QueuesEndpoint(queueAdmin, engine) : new QueuesEndpoint(queueAdmin);
	}

}
