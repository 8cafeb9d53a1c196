package io.github.redisqueue.test.batch;

/**
 * The payload of a sub-job run by a {@link BatchWorkerMain}.
 *
 * @param batch the producer's name for the batch, under which its runs are recorded
 * @param index the sub-job's place in the batch, from 0
 * @param workMillis how long its handler works
 * @param hang whether its handler blocks for good in a worker started to hang
 * ({@value BatchWorkerMain#HANG})
 */
public record Piece(String batch, int index, int workMillis, boolean hang) {

}
