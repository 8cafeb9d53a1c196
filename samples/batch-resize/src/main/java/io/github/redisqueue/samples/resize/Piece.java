package io.github.redisqueue.samples.resize;

/**
 * One tile of a request: the sub-job's payload.
 *
 * @param image the image name
 * @param index the tile's index, from 0
 */
public record Piece(String image, int index) {

}
