package io.github.redisqueue.testing;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Prepares the application context of a {@link QueueTest @QueueTest} class: the test Redis's
 * {@code spring.data.redis.*} properties, ahead of the application's own, and the
 * {@link QueueTestHelper} bean. Registered in {@code META-INF/spring.factories}.
 *
 * @since 0.1.0
 */
public class QueueTestContextCustomizerFactory implements ContextCustomizerFactory {

	/** The name of the property source holding the test Redis's connection properties. */
	public static final String PROPERTY_SOURCE = "queueTestRedis";

	/** The name of the {@link QueueTestHelper} bean. */
	public static final String HELPER_BEAN = "queueTestHelper";

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		boolean queueTest = MergedAnnotations.from(testClass, SearchStrategy.TYPE_HIERARCHY).isPresent(QueueTest.class);
		return queueTest ? new Customizer() : null;
	}

	/** Stateless: every {@code @QueueTest} class can share one cached context per configuration. */
	private static final class Customizer implements ContextCustomizer {

		@Override
		public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
			RedisEndpoint redis = TestRedis.shared();
			Map<String, Object> properties = new LinkedHashMap<>();
			for (String property : TestRedis.springProperties(redis)) {
				int equals = property.indexOf('=');
				properties.put(property.substring(0, equals), property.substring(equals + 1));
			}
			context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE, properties));
			if (!(context instanceof BeanDefinitionRegistry registry)) {
				throw new IllegalStateException("@QueueTest needs a context that takes bean definitions, not "
						+ context.getClass().getName());
			}
			// made on first use, once the application's QueueAdmin exists
			registry.registerBeanDefinition(HELPER_BEAN,
					new RootBeanDefinition(QueueTestHelper.class, () -> QueueTestHelper.of(context)));
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return other != null && other.getClass() == getClass();
		}

		@Override
		public int hashCode() {
			return Customizer.class.hashCode();
		}

	}

}
