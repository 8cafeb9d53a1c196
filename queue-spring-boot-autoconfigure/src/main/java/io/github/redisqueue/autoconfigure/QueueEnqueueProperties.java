package io.github.redisqueue.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the auto-configured template's enqueues, under
 * {@code queue.enqueue.}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("queue.enqueue")
public class QueueEnqueueProperties {

	/**
	 * Whether an enqueue called inside a Spring transaction waits for it to commit (and is dropped
	 * if it rolls back). Such an enqueue returns a deferred result without a job id. Off by
	 * default: enqueues run at once and return their id, as outside a transaction.
	 */
	private boolean transactionAware = false;

	public boolean isTransactionAware() {
		return this.transactionAware;
	}

	public void setTransactionAware(boolean transactionAware) {
		this.transactionAware = transactionAware;
	}

}
