/**
 * The fetch side of a listener container: the fetch loop, which reserves as many jobs as it has
 * free slots, hands them to the executor, never lets more handlers run than the concurrency, and
 * drains on stop; the state of each job it holds; and the Redis server clock it compares due
 * times with.
 *
 * <p>Internal parts of {@link io.github.redisqueue.listener.QueueListenerContainer}; not API; may
 * change in any release.
 */
@NullMarked
package io.github.redisqueue.listener.fetch;

import org.jspecify.annotations.NullMarked;
