/**
 * Argument resolvers for listener methods: job metadata, the acknowledgement handle, and the
 * resolver that turns a payload that cannot be read into a dead letter instead of a retry loop.
 */
@NullMarked
package io.github.redisqueue.support.resolver;

import org.jspecify.annotations.NullMarked;
