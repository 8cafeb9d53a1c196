package io.github.redisqueue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;
import org.springframework.messaging.handler.annotation.MessageMapping;

/**
 * Marks a bean method as the listener of a queue. The method runs once per job on a container
 * of its own; returning normally acknowledges the job, throwing retries it with back-off and
 * finally dead-letters it (see {@link #ackMode()}).
 *
 * <p>The method may declare: the payload (any type Jackson can read, optionally
 * {@code @Payload}), {@link io.github.redisqueue.support.JobMetadata}, single headers with
 * {@code @Header("name")} (the job's headers and those of
 * {@link io.github.redisqueue.support.QueueHeaders}), and in {@code MANUAL} mode an
 * {@link io.github.redisqueue.listener.Acknowledgement}.
 *
 * <p>Attributes left empty take the value configured for the queue, then the container
 * factory's defaults. String attributes accept {@code ${...}} placeholders and SpEL.
 *
 * @since 0.1.0
 * @see EnableQueueListeners
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@MessageMapping
@Documented
public @interface QueueListener {

	/** The queue to consume. */
	@AliasFor("queue")
	String value() default "";

	/** The queue to consume. */
	@AliasFor("value")
	String queue() default "";

	/** Container id, unique in the application; defaults to {@code ClassName.method}. */
	String id() default "";

	/** How many jobs run at once, for example {@code "8"}. */
	String concurrency() default "";

	/**
	 * Jobs reserved beyond {@code concurrency} to keep the threads busy; when unset it adapts to
	 * the handlers' speed, from {@code concurrency} up to 16 per thread (at most 256).
	 */
	String prefetch() default "";

	/** Lease of each job, a duration such as {@code "30s"} or {@code "PT30S"}. */
	String lease() default "";

	/** Attempts before a job is dead-lettered, overriding the job's own. */
	String maxAttempts() default "";

	/** First retry delay, a duration. */
	String backOffInitial() default "";

	/** Factor between retry delays, for example {@code "2.0"}. */
	String backOffMultiplier() default "";

	/** Longest retry delay, a duration. */
	String backOffMax() default "";

	/** Exceptions that dead-letter a job at once, without retries. */
	Class<? extends Throwable>[] notRetryable() default {};

	/** Acknowledgement mode: {@code ON_SUCCESS}, {@code ALWAYS}, {@code MANUAL} or {@code AT_MOST_ONCE}. */
	String ackMode() default "";

	/** Whether the container starts with the application: {@code "true"} or {@code "false"}. */
	String autoStartup() default "";

	/** Bean name of the container factory; the default factory when empty. */
	String containerFactory() default "";

}
