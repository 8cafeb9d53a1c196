/**
 * Reliable Redis work queues: the engine, its producer and pull APIs, and the listener
 * infrastructure.
 */
@NullMarked
package io.github.redisqueue;

import org.jspecify.annotations.NullMarked;
