package io.github.redisqueue.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.annotation.AliasFor;

/**
 * A {@link SpringBootTest @SpringBootTest} of an application that uses redis-queue, against a real
 * Redis:
 * <ul>
 * <li>the application connects to the test Redis: {@code spring.data.redis.*} (host and port, or
 * a cluster's nodes) point at the Redis {@code TestRedis} finds or starts once per JVM:
 * {@code REDIS_URL}, Testcontainers where a Docker engine runs, {@code redis-server} on
 * {@code PATH} on a free port, or the Redis binary of {@code org.signal:embedded-redis};</li>
 * <li>before each test the library's keys (under the key prefix) are deleted, so that each test
 * starts with empty queues while the application context, cached between tests, keeps running;</li>
 * <li>a {@link QueueTestHelper} bean is there to inject;</li>
 * <li>a test after which a queue holds dead letters fails with their errors, unless it expects
 * them ({@link ExpectDeadLetters @ExpectDeadLetters}).</li>
 * </ul>
 *
 * @since 0.1.0
 * @see QueueTestExtension
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@SpringBootTest
@ExtendWith(QueueTestExtension.class)
public @interface QueueTest {

	/**
	 * Properties of the application under test, as {@link SpringBootTest#properties()}.
	 * @return {@code key=value} pairs
	 */
	@AliasFor(annotation = SpringBootTest.class)
	String[] properties() default {};

	/**
	 * The configuration classes to load, as {@link SpringBootTest#classes()}.
	 * @return the classes; none to find the {@code @SpringBootConfiguration}
	 */
	@AliasFor(annotation = SpringBootTest.class)
	Class<?>[] classes() default {};

	/**
	 * The web environment, as {@link SpringBootTest#webEnvironment()}.
	 * @return the web environment
	 */
	@AliasFor(annotation = SpringBootTest.class)
	SpringBootTest.WebEnvironment webEnvironment() default SpringBootTest.WebEnvironment.MOCK;

	/**
	 * Whether the library's keys are deleted before each test.
	 * @return {@code false} to keep what earlier tests left
	 */
	boolean cleanBeforeEach() default true;

}
