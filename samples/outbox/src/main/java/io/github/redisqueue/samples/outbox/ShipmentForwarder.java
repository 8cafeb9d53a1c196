package io.github.redisqueue.samples.outbox;

import java.nio.file.Files;
import java.nio.file.Path;

import io.github.redisqueue.core.EnqueueResult;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.modulith.events.ApplicationModuleListener;
import org.springframework.stereotype.Component;

/**
 * Turns each committed {@link OrderPlaced} into a {@code shipments} job. Spring Modulith marks the
 * event's publication complete only when this method returns; until then a restart publishes it
 * again. The idempotency key makes a second delivery harmless: if the process dies after the
 * enqueue but before the publication is marked complete, the enqueue runs again and creates no
 * second job.
 */
@Component
public class ShipmentForwarder {

	private static final Logger logger = LoggerFactory.getLogger(ShipmentForwarder.class);

	private final QueueOperations queues;

	private final String gate;

	ShipmentForwarder(QueueOperations queues, @Value("${sample.outbox.gate:}") String gate) {
		this.queues = queues;
		this.gate = gate;
	}

	@ApplicationModuleListener
	void on(OrderPlaced event) throws InterruptedException {
		if (!this.gate.isEmpty()) {
			logger.info("Order {} committed; waiting for {} before enqueueing its shipment", event.orderId(), this.gate);
			while (!Files.exists(Path.of(this.gate))) {
				Thread.sleep(100);
			}
		}
		EnqueueResult result = this.queues.enqueue("shipments", new Shipment(event.orderId()),
				JobOptions.builder().idempotencyKey("order-" + event.orderId()).build());
		logger.info("Shipment of order {} enqueued: job {} (duplicate: {})", event.orderId(), result.id(),
				result.duplicate());
	}

}
