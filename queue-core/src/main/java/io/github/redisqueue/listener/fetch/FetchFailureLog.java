package io.github.redisqueue.listener.fetch;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a fetch loop reports an outage without flooding the log: the first failed fetch at WARN
 * with its cause, then a reminder once a minute (the others at DEBUG), and the recovery at INFO.
 * Used by the loop's thread only.
 */
final class FetchFailureLog {

	// the fetch loop's logger: what it logs is the loop's story
	private static final Logger logger = LoggerFactory.getLogger(FetchLoop.class);

	private final String queue;

	private final Duration retryInterval;

	private int failedFetches;

	private long lastWarning;

	FetchFailureLog(String queue, Duration retryInterval) {
		this.queue = queue;
		this.retryInterval = retryInterval;
	}

	void failed(RuntimeException ex) {
		this.failedFetches++;
		long now = System.nanoTime();
		if (this.failedFetches == 1) {
			this.lastWarning = now;
			logger.warn("Fetching from queue '{}' failed; trying again every {}", this.queue, this.retryInterval, ex);
		}
		else if (now - this.lastWarning >= TimeUnit.MINUTES.toNanos(1)) {
			this.lastWarning = now;
			logger.warn("Fetching from queue '{}' still fails after {} attempts: {}", this.queue, this.failedFetches,
					ex.toString());
		}
		else {
			logger.debug("Fetching from queue '{}' failed again", this.queue, ex);
		}
	}

	void succeeded() {
		if (this.failedFetches > 0) {
			logger.info("Fetching from queue '{}' works again after {} failed attempts", this.queue,
					this.failedFetches);
			this.failedFetches = 0;
		}
	}

	/**
	 * Whether the engine refused the call itself (a count, lease or setting out of range), as
	 * opposed to Redis failing to answer: no retry cures it. A {@link NumberFormatException} is a
	 * reply that could not be read, which may pass.
	 */
	static boolean isRefusedAsInvalid(RuntimeException ex) {
		return ex instanceof IllegalArgumentException && !(ex instanceof NumberFormatException);
	}

}
