/**
 * Listener container part: adapter.
 */
@NullMarked
package io.github.redisqueue.listener.adapter;

import org.jspecify.annotations.NullMarked;
