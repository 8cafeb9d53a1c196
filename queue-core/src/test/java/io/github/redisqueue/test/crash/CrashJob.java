package io.github.redisqueue.test.crash;

/**
 * The payload of a crash-trial job.
 *
 * @param key the producer's name for the job, unique in a trial ({@code k<n>}); it tells two jobs
 * made from one enqueue apart from two runs of one job
 * @param workMillis how long the handler works on it
 */
public record CrashJob(String key, int workMillis) {

}
