/**
 * Listener endpoints and their containers: the endpoint built from an annotated method, the
 * registrar that collects endpoints at startup, the registry that creates, starts and stops
 * one container per endpoint, and the container factory that carries shared settings.
 */
@NullMarked
package io.github.redisqueue.config;

import org.jspecify.annotations.NullMarked;
