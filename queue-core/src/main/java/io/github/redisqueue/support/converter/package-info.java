/**
 * Payload and header serialization: the {@code JobSerializer} contract, its Jackson
 * implementation, and the message converter listener methods use to read a job's payload.
 */
@NullMarked
package io.github.redisqueue.support.converter;

import org.jspecify.annotations.NullMarked;
