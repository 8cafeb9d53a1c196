/**
 * Types shared by producers and listeners that depend on nothing else in the library: the
 * header names a job carries and the metadata a listener method can receive.
 */
@NullMarked
package io.github.redisqueue.support;

import org.jspecify.annotations.NullMarked;
