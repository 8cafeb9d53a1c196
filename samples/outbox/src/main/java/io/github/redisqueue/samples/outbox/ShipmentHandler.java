package io.github.redisqueue.samples.outbox;

import io.github.redisqueue.annotation.QueueListener;
import io.github.redisqueue.support.JobMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Ships orders. The job exists only once the order is committed, so the order's row is always
 * there when a shipment runs.
 */
@Component
public class ShipmentHandler {

	private static final Logger logger = LoggerFactory.getLogger(ShipmentHandler.class);

	private final JdbcTemplate jdbc;

	ShipmentHandler(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@QueueListener(queue = "shipments", id = "shipments")
	void ship(Shipment shipment, JobMetadata job) {
		String item = this.jdbc.queryForObject("select item from orders where id = ?", String.class,
				shipment.orderId());
		logger.info("Shipped order {} ({}) as job {}", shipment.orderId(), item, job.id());
	}

}
