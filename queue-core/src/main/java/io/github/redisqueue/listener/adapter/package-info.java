/**
 * The bridge from a container to a {@code @QueueListener} method: a job becomes a
 * spring-messaging {@code Message}, and the method is called through its
 * {@code InvocableHandlerMethod}.
 *
 * <p>Internal parts of {@link io.github.redisqueue.listener.QueueListenerContainer}; not API; may
 * change in any release.
 */
@NullMarked
package io.github.redisqueue.listener.adapter;

import org.jspecify.annotations.NullMarked;
