/**
 * The operator dashboard: a page served from the jar (no external asset) over a small JSON API
 * that reads and acts on the queues through {@link io.github.redisqueue.core.QueueAdminOperations},
 * with its access rules (read-only mode, Spring Security roles, CSRF) in one interceptor.
 */
@NullMarked
package io.github.redisqueue.dashboard;

import org.jspecify.annotations.NullMarked;
