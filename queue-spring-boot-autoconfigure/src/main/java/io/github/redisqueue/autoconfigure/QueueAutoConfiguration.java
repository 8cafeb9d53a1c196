package io.github.redisqueue.autoconfigure;

import io.github.redisqueue.core.JobEvents;
import io.github.redisqueue.core.DurableEnqueue;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueScripts;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.RateLimit;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.support.converter.JobSerializer;
import io.github.redisqueue.support.micrometer.QueueEnqueueObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Auto-configuration of redis-queue: the engine ({@link QueueTemplate}) on the application's
 * {@link RedisConnectionFactory} (or on a Redis of its own when {@code queue.redis.url} is set),
 * its administration ({@link QueueAdmin}) and their collaborators. {@link QueueListenerAutoConfiguration} and
 * {@link QueueReaperAutoConfiguration} build on it.
 *
 * @since 0.1.0
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({ QueueTemplate.class, RedisConnectionFactory.class })
@EnableConfigurationProperties({ QueueProperties.class, QueueEnqueueProperties.class })
public final class QueueAutoConfiguration {

	/** Bean name of the dedicated connection factory made for {@code queue.redis.url}. */
	public static final String QUEUE_CONNECTION_FACTORY_BEAN_NAME = "queueRedisConnectionFactory";

	/**
	 * Warns at startup of every queue.* key that binds to nothing, with the nearest valid key; with
	 * queue.fail-on-unknown-properties=true, fails the start instead.
	 */
	@Bean
	static UnknownQueuePropertiesCheck queueUnknownPropertiesCheck(Environment environment, BeanFactory beanFactory) {
		return new UnknownQueuePropertiesCheck(environment,
				(beanFactory instanceof ConfigurableBeanFactory configurable) ? configurable.getBeanClassLoader() : null);
	}

	@Bean
	@ConditionalOnMissingBean
	JobSerializer queueJobSerializer(ObjectProvider<JsonMapper> jsonMapper) {
		JsonMapper mapper = jsonMapper.getIfAvailable();
		return (mapper != null) ? new JacksonJobSerializer(mapper) : new JacksonJobSerializer();
	}

	@Bean
	@ConditionalOnMissingBean
	QueueScripts queueScripts(QueueProperties properties) {
		return new QueueScripts(properties.getRedis().isFunctions()
				&& !"false".equals(System.getProperty(QueueScripts.FUNCTIONS_PROPERTY)));
	}

	@Bean
	@ConditionalOnMissingBean
	QueueSettings queueSettings(QueueProperties properties) {
		QueueSettings.Builder settings = QueueSettings.builder()
			.keyPrefix(properties.getKeyPrefix())
			.workerId(properties.getWorkerId())
			.maxPayloadBytes((int) properties.getMaxPayloadSize().toBytes())
			.defaultMaxAttempts(properties.getDefaultMaxAttempts())
			.completedRetention(properties.getRetention().getCompleted())
			.deadRetention(properties.getRetention().getDead())
			.reapBatch(properties.getReaper().getBatch())
			.resultRetention(properties.getResultRetention())
			.maxResultBytes((int) properties.getMaxResultSize().toBytes())
			.batchRetention(properties.getBatchRetention())
			.defaultGroupConcurrency(properties.getDefaultGroupConcurrency());
		properties.getQueues().forEach((queue, values) -> {
			if (values.getGroupConcurrency() != null) {
				settings.groupConcurrency(queue, values.getGroupConcurrency());
			}
			settings.partitions(queue, values.getPartitions());
			if (values.getRateLimit() != null) {
				settings.rateLimit(queue, RateLimit.parse(values.getRateLimit()));
			}
		});
		return settings.build();
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
	QueueTemplate queueTemplate(RedisConnectionFactory connectionFactory, BeanFactory beanFactory,
			JobSerializer serializer, QueueSettings settings, QueueScripts scripts, ObjectProvider<JobEvents> events,
			QueueProperties properties, QueueEnqueueProperties enqueueProperties) {
		RedisConnectionFactory queueConnections = beanFactory.containsBean(QUEUE_CONNECTION_FACTORY_BEAN_NAME)
				? beanFactory.getBean(QUEUE_CONNECTION_FACTORY_BEAN_NAME, RedisConnectionFactory.class)
				: connectionFactory;
		QueueTemplate template = new QueueTemplate(queueConnections, serializer, settings, scripts);
		template.setEnqueueTimeout(properties.getEnqueueTimeout());
		template.setDurableEnqueue(new DurableEnqueue(properties.getDurableEnqueue().getReplicas(),
				properties.getDurableEnqueue().getTimeout()));
		template.setTransactionAware(enqueueProperties.isTransactionAware());
		events.ifAvailable(template::setJobEvents);
		return template;
	}

	@Bean
	@ConditionalOnMissingBean(QueueAdminOperations.class)
	@ConditionalOnSingleCandidate(QueueTemplate.class)
	QueueAdmin queueAdmin(QueueTemplate queueTemplate) {
		return new QueueAdmin(queueTemplate);
	}

	/**
	 * Reads the Redis settings the guarantees depend on once at startup, off the startup thread,
	 * and warns when eviction or the absence of persistence can lose jobs.
	 */
	@Bean
	@ConditionalOnBooleanProperty(name = "queue.redis-check.enabled", matchIfMissing = true)
	@ConditionalOnSingleCandidate(QueueTemplate.class)
	RedisConfigurationCheck queueRedisConfigurationCheck(QueueTemplate queueTemplate) {
		return new RedisConfigurationCheck(queueTemplate.getConnectionFactory());
	}

	/**
	 * Observes enqueue calls of every {@link QueueTemplate} bean that has no registry of its own,
	 * once all singletons exist: the observation registry reaches the meter registry, whose
	 * binders need the template, so the template cannot ask for it when it is created.
	 */
	@Bean
	static SmartInitializingSingleton queueTemplateObservationInitializer(ObjectProvider<QueueTemplate> templates,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<QueueEnqueueObservationConvention> convention) {
		return () -> observationRegistry.ifUnique((registry) -> templates.orderedStream().forEach((template) -> {
			if (template.getObservationRegistry().isNoop()) {
				template.setObservationRegistry(registry);
				convention.ifUnique(template::setEnqueueObservationConvention);
			}
		}));
	}

	/**
	 * A connection factory of the queues' own, hidden from autowiring so that it never competes
	 * with the application's.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty("queue.redis.url")
	static class DedicatedConnectionConfiguration {

		@Bean(name = QUEUE_CONNECTION_FACTORY_BEAN_NAME, autowireCandidate = false)
		LettuceConnectionFactory queueRedisConnectionFactory(QueueProperties properties) {
			return new LettuceConnectionFactory(LettuceConnectionFactory.createRedisConfiguration(properties.getRedis().getUrl()));
		}

	}

}
