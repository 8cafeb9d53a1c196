package io.github.redisqueue.samples.resize;

/**
 * A request to resize one image, cut into {@code pieces} tiles of which at most
 * {@code maxConcurrency} are worked on at once.
 *
 * @param image the image name
 * @param pieces how many tiles, from 1 to 10,000
 * @param maxConcurrency the cap, from 1 to 1,000
 * @param priority the priority of the tiles, from -1000 to 1000
 */
public record ResizeRequest(String image, int pieces, int maxConcurrency, int priority) {

}
