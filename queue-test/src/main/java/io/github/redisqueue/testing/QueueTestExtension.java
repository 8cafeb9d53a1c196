package io.github.redisqueue.testing;

import java.lang.reflect.AnnotatedElement;
import java.util.Optional;

import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * The JUnit 5 side of {@link QueueTest @QueueTest}. Around each test of a Spring test class it
 * deletes the library's keys (unless {@link QueueTest#cleanBeforeEach()} is off), resets the
 * {@link QueueTestHelper}'s expectations from {@link ExpectDeadLetters @ExpectDeadLetters}, fails
 * a test that passed but left unexpected dead letters, and starts again the listeners
 * {@link QueueTestHelper#runOne(String)} stopped.
 *
 * <p>In a test without Spring, {@code @ExtendWith(QueueTestExtension.class)} gives test methods
 * and constructors a {@link RedisEndpoint} parameter: the Redis shared by the tests of the JVM.
 *
 * @since 0.1.0
 */
public class QueueTestExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
		.create(QueueTestExtension.class);

	@Override
	public void beforeEach(ExtensionContext context) {
		if (!MergedAnnotations.from(context.getRequiredTestClass(), SearchStrategy.TYPE_HIERARCHY)
			.isPresent(QueueTest.class)) {
			return;
		}
		ApplicationContext applicationContext = SpringExtension.getApplicationContext(context);
		QueueTestHelper helper = applicationContext.getBean(QueueTestHelper.class);
		// kept for afterEach, which may run after the test context closed a dirtied context
		context.getStore(NAMESPACE).put(ApplicationContext.class, applicationContext);
		QueueTest settings = MergedAnnotations.from(context.getRequiredTestClass(), SearchStrategy.TYPE_HIERARCHY)
			.get(QueueTest.class)
			.synthesize();
		if (settings.cleanBeforeEach()) {
			helper.deleteQueueKeys();
		}
		helper.beginTest(expected(context));
	}

	@Override
	public void afterEach(ExtensionContext context) {
		ApplicationContext applicationContext = context.getStore(NAMESPACE)
			.remove(ApplicationContext.class, ApplicationContext.class);
		if (applicationContext == null || (applicationContext instanceof ConfigurableApplicationContext configurable
				&& !configurable.isActive())) {
			return;
		}
		QueueTestHelper helper = applicationContext.getBean(QueueTestHelper.class);
		try {
			if (context.getExecutionException().isEmpty()) {
				helper.assertNoUnexpectedDeadLetters();
			}
		}
		finally {
			helper.endTest();
		}
	}

	/** The queues of {@code @ExpectDeadLetters} on the method, else on the class; null when neither has it. */
	private static String @Nullable [] expected(ExtensionContext context) {
		for (AnnotatedElement element : new AnnotatedElement[] { context.getRequiredTestMethod(),
				context.getRequiredTestClass() }) {
			Optional<ExpectDeadLetters> found = MergedAnnotations.from(element, SearchStrategy.TYPE_HIERARCHY)
				.get(ExpectDeadLetters.class)
				.synthesize(MergedAnnotation::isPresent);
			if (found.isPresent()) {
				return found.get().value();
			}
		}
		return null;
	}

	@Override
	public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
		return parameter.getParameter().getType() == RedisEndpoint.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
		return TestRedis.shared();
	}

}
