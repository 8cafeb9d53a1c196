package io.github.redisqueue.samples.resize;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Batches: a REST endpoint takes a resize request, splits it into pieces and submits them as one
 * batch with a cap on how many run at once; a {@code @QueueListener} resizes the pieces and
 * returns a result for each; a second listener is told once when every piece has ended. Progress
 * is read as JSON or followed as server-sent events. When no Redis answers at the configured
 * address, an embedded Redis is started for the demo.
 */
@SpringBootApplication
public class BatchResizeApplication {

	public static void main(String[] args) {
		SpringApplication.run(BatchResizeApplication.class, args);
	}

}
