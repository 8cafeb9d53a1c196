package io.github.redisqueue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;

/**
 * Turns on {@link QueueListener @QueueListener} methods in a plain Spring application (Spring
 * Boot's starter does it for you).
 *
 * <pre class="code">
 * &#064;Configuration
 * &#064;EnableQueueListeners
 * public class AppConfig {
 *
 *     &#064;Bean
 *     QueueTemplate queueTemplate(RedisConnectionFactory connectionFactory) {
 *         return new QueueTemplate(connectionFactory);
 *     }
 *
 *     &#064;Bean
 *     QueueAdmin queueAdmin(QueueTemplate queueTemplate) {
 *         return new QueueAdmin(queueTemplate); // counts, dead letters, pause, the reaper's passes
 *     }
 *
 *     &#064;Bean
 *     DefaultQueueListenerContainerFactory queueListenerContainerFactory(QueueTemplate queueTemplate) {
 *         DefaultQueueListenerContainerFactory factory = new DefaultQueueListenerContainerFactory(queueTemplate);
 *         factory.setContainerOptions(ContainerOptions.builder().concurrency(4).build());
 *         return factory;
 *     }
 * }
 *
 * &#064;Component
 * public class Mailer {
 *
 *     &#064;QueueListener(queue = "emails", concurrency = "8")
 *     void send(Email email, JobMetadata job) {
 *         // ...
 *     }
 * }
 * </pre>
 *
 * <p>The default container factory is the bean named {@code queueListenerContainerFactory}.
 * Implement {@link QueueListenerConfigurer} to register endpoints by hand, add argument
 * resolvers, or set another default factory.
 *
 * @since 0.1.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(QueueBootstrapConfiguration.class)
public @interface EnableQueueListeners {

}
