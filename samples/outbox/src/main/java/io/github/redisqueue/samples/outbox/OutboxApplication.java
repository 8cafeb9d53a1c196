package io.github.redisqueue.samples.outbox;

import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableAsync;

/**
 * The outbox: an order and the event that it was placed are written in one database transaction
 * (Spring Modulith's event publication registry keeps the event in the same database); after the
 * commit a listener turns the event into a job of the {@code shipments} queue. A process that dies
 * between the commit and the enqueue leaves the publication incomplete, and the next start
 * publishes it again, so the job is enqueued all the same, once.
 *
 * <p>{@code --sample.outbox.place-order=<item>} places one order at startup;
 * {@code --sample.outbox.gate=<file>} makes the listener wait for that file to exist before it
 * enqueues, to leave time to kill the process between the commit and the enqueue.
 */
@SpringBootApplication
@EnableAsync
public class OutboxApplication {

	public static void main(String[] args) {
		SpringApplication.run(OutboxApplication.class, args);
	}

	@Bean
	ApplicationRunner placeOrderAtStartup(Orders orders, Environment environment) {
		return (args) -> {
			String item = environment.getProperty("sample.outbox.place-order");
			if (item != null) {
				orders.place(item);
			}
		};
	}

}
