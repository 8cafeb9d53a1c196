package io.github.redisqueue.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redisqueue.annotation.QueueListener;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * A small application for the tests: orders are handled by a listener that runs (one attempt,
 * a "refuse" item fails), invoices by one that does not start on its own (two attempts, an hour
 * between them).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(OrdersApplication.Handlers.class)
class OrdersApplication {

	record Order(String item, int quantity) {
	}

	static class Handlers {

		final List<Order> orders = new CopyOnWriteArrayList<>();

		final List<Order> invoices = new CopyOnWriteArrayList<>();

		@QueueListener(queue = "orders", id = "orders", maxAttempts = "1")
		void order(Order order) {
			if (order.item().startsWith("refuse")) {
				throw new IllegalStateException("out of stock: " + order.item());
			}
			this.orders.add(order);
		}

		@QueueListener(queue = "invoices", id = "invoices", autoStartup = "false", maxAttempts = "2",
				backOffInitial = "1h", backOffMax = "2h")
		void invoice(Order order) {
			this.invoices.add(order);
			if (order.item().startsWith("refuse")) {
				throw new IllegalStateException("no billing address: " + order.item());
			}
		}

	}

}
