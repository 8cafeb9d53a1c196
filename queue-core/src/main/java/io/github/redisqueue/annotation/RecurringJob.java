package io.github.redisqueue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the source of a recurring job: at each tick of the cron expression, one
 * job is enqueued to the queue, cluster-wide, whatever the number of running instances (see
 * {@link io.github.redisqueue.schedule.RecurringJobScheduler}). The method's return value is the
 * job's payload, serialized like any payload; a method returning {@code null} enqueues nothing for
 * that tick. The method takes no argument, or one {@link java.time.Instant}: the tick.
 * <p>
 * Every instance that runs the schedule calls the method when a tick it has not seen handled
 * comes, and one call's value is enqueued: keep the method free of side effects. Attributes
 * accept {@code ${...}} placeholders and {@code #{...}} expressions. Found by
 * {@link RecurringJobAnnotationBeanPostProcessor}.
 *
 * <pre class="code">
 * &#64;RecurringJob(cron = "0 0 8 * * MON-FRI", queue = "emails", zone = "Europe/Paris")
 * Email dailyDigest() {
 *     return new Email("team@example.com", "Digest");
 * }
 * </pre>
 *
 * @since 0.1.0
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RecurringJob {

	/** The cron expression: six fields, seconds first ({@code CronExpression} syntax). */
	String cron();

	/** The queue the jobs go to. */
	String queue();

	/** The time zone the expression is read in; the JVM's default zone when empty. */
	String zone() default "";

	/**
	 * The schedule's name, under which its last tick is kept in Redis; unique per queue.
	 * {@code SimpleClassName.method} when empty.
	 */
	String name() default "";

	/** What happens to missed ticks: {@code fire-once} (default) or {@code skip}. */
	String missed() default "fire-once";

	/** How late a tick may fire and still be on time, as a duration ({@code 10s} when empty). */
	String grace() default "";

}
