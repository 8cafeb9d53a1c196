package io.github.redisqueue.samples.outbox;

/**
 * The event that an order was placed, published inside the transaction that wrote the order.
 *
 * @param orderId the order's id
 * @param item what was ordered
 */
public record OrderPlaced(long orderId, String item) {

}
