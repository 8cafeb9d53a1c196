package io.github.redisqueue.samples.humantasks;

/**
 * A task for a person.
 *
 * @param title what to do
 * @param details more about it
 */
public record Task(String title, String details) {

}
