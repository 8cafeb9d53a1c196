/**
 * Payload and header serialization.
 */
@NullMarked
package io.github.redisqueue.support.converter;

import org.jspecify.annotations.NullMarked;
