package io.github.redisqueue.autoconfigure;

import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReactiveQueueOperations;
import io.github.redisqueue.core.ReactiveQueueTemplate;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;

/**
 * Auto-configuration of the reactive producer: a {@link ReactiveQueueTemplate} on the
 * auto-configured {@link QueueTemplate}, when Reactor is on the class path and the application has
 * a {@link ReactiveRedisConnectionFactory} (Spring Boot's Lettuce connection factory is one). It
 * shares the template's connection factory, settings, serializer and scripts.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnClass({ Mono.class, ReactiveRedisConnectionFactory.class, ReactiveQueueTemplate.class })
public final class QueueReactiveAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(ReactiveQueueOperations.class)
	@ConditionalOnSingleCandidate(QueueTemplate.class)
	@ConditionalOnBean(ReactiveRedisConnectionFactory.class)
	ReactiveQueueTemplate reactiveQueueTemplate(QueueTemplate queueTemplate) {
		return new ReactiveQueueTemplate(queueTemplate);
	}

}
