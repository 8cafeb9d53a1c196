package io.github.redisqueue.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Lets a test end with dead letters: {@link QueueTestExtension} fails a test after which a queue
 * holds dead letters, unless the test method (or its class) carries this annotation for that
 * queue. {@link QueueTestHelper#expectDeadLetters(String...)} says the same from inside a test.
 *
 * @since 0.1.0
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface ExpectDeadLetters {

	/**
	 * The queues whose dead letters are expected; none for any queue.
	 * @return the queue names
	 */
	String[] value() default {};

}
