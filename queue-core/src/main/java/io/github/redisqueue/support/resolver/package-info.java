/**
 * Argument resolvers for listener methods.
 */
@NullMarked
package io.github.redisqueue.support.resolver;

import org.jspecify.annotations.NullMarked;
