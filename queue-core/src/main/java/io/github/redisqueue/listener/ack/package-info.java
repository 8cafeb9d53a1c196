/**
 * Batched acknowledgements.
 */
@NullMarked
package io.github.redisqueue.listener.ack;

import org.jspecify.annotations.NullMarked;
