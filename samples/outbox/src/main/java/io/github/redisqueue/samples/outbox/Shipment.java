package io.github.redisqueue.samples.outbox;

/**
 * The payload of a {@code shipments} job.
 *
 * @param orderId the order to ship
 */
public record Shipment(long orderId) {

}
