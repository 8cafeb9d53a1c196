package io.github.redisqueue.samples.quickstart;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The quick start: a REST endpoint enqueues e-mails, a {@code @QueueListener} sends them, and
 * Actuator shows the application's health and metrics. When no Redis answers at the configured
 * address, an embedded Redis is started for the demo.
 */
@SpringBootApplication
public class QuickstartApplication {

	public static void main(String[] args) {
		SpringApplication.run(QuickstartApplication.class, args);
	}

}
