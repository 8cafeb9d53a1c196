/**
 * Testing applications that use redis-queue against a real Redis: {@link QueueTest @QueueTest},
 * {@link QueueTestExtension} and {@link QueueTestHelper}.
 */
@NullMarked
package io.github.redisqueue.testing;

import org.jspecify.annotations.NullMarked;
