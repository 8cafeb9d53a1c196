/**
 * Annotation-driven listeners: {@code @QueueListener} on a bean method, {@code @EnableQueueListeners}
 * to switch detection on in a plain Spring application, and the bean post-processor that turns
 * each annotated method into a listener endpoint.
 */
@NullMarked
package io.github.redisqueue.annotation;

import org.jspecify.annotations.NullMarked;
