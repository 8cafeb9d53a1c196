/**
 * The queue health indicator: down when Redis does not answer or a listener container stopped
 * on its own, otherwise up with counts per queue, or a configured status once a threshold is passed.
 */
@NullMarked
package io.github.redisqueue.health;

import org.jspecify.annotations.NullMarked;
