/**
 * Auto-configuration of the queue health indicator.
 */
@NullMarked
package io.github.redisqueue.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
