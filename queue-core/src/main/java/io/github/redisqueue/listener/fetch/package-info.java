/**
 * Listener container part: fetch.
 */
@NullMarked
package io.github.redisqueue.listener.fetch;

import org.jspecify.annotations.NullMarked;
