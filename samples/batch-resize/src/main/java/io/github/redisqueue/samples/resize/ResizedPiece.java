package io.github.redisqueue.samples.resize;

/**
 * What resizing a tile gave: the sub-job's result.
 *
 * @param index the tile's index
 * @param output the name of the resized tile
 * @param bytes its size
 */
public record ResizedPiece(int index, String output, long bytes) {

}
