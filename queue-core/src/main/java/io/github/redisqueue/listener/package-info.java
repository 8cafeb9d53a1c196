/**
 * Listener containers: one fetch loop per container reserving as many jobs as it has free slots,
 * an executor running them, batched acknowledgements and lease extension.
 */
@NullMarked
package io.github.redisqueue.listener;

import org.jspecify.annotations.NullMarked;
