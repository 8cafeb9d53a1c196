/**
 * Auto-configuration of the operator dashboard ({@code queue.dashboard.*}).
 */
@NullMarked
package io.github.redisqueue.autoconfigure.dashboard;

import org.jspecify.annotations.NullMarked;
