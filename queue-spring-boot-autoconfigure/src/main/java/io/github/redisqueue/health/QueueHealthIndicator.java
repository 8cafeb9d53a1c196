package io.github.redisqueue.health;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueCounts;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the queues: DOWN (with the error) when Redis cannot be reached; otherwise UP with
 * per-queue counts, the paused flag and the number of live workers, or the configured status
 * when a threshold is passed (more dead letters, or more ready jobs, than allowed). Reads the
 * queue registry, one pipelined round trip of counts, and the worker registry; never scans jobs.
 *
 * @since 0.1.0
 */
public class QueueHealthIndicator extends AbstractHealthIndicator {

	private final QueueAdminOperations operations;

	private final @Nullable Long maxDead;

	private final @Nullable Long maxReady;

	private final String thresholdStatus;

	/**
	 * @param operations the engine
	 * @param maxDead dead letters per queue above which the threshold status applies, if any
	 * @param maxReady ready jobs per queue above which the threshold status applies, if any
	 * @param thresholdStatus the status when a threshold is passed
	 */
	public QueueHealthIndicator(QueueAdminOperations operations, @Nullable Long maxDead, @Nullable Long maxReady,
			String thresholdStatus) {
		super("Queues are not reachable in Redis");
		this.operations = operations;
		this.maxDead = maxDead;
		this.maxReady = maxReady;
		this.thresholdStatus = thresholdStatus;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Map<String, QueueCounts> counts = this.operations.counts(this.operations.queues());
		Map<String, Object> queues = new LinkedHashMap<>();
		List<String> exceeded = new ArrayList<>();
		counts.forEach((name, c) -> {
			Map<String, Object> detail = new LinkedHashMap<>();
			detail.put("ready", c.ready());
			detail.put("delayed", c.delayed());
			detail.put("inFlight", c.inFlight());
			detail.put("dead", c.dead());
			detail.put("paused", c.paused());
			detail.put("headAgeMillis", (c.headAge() != null) ? c.headAge().toMillis() : 0);
			queues.put(name, detail);
			if (this.maxDead != null && c.dead() > this.maxDead) {
				exceeded.add(name + ": " + c.dead() + " dead letters > " + this.maxDead);
			}
			if (this.maxReady != null && c.ready() > this.maxReady) {
				exceeded.add(name + ": " + c.ready() + " ready jobs > " + this.maxReady);
			}
		});
		builder.withDetail("queues", queues).withDetail("workers", this.operations.workers().size());
		if (exceeded.isEmpty()) {
			builder.up();
		}
		else {
			builder.status(this.thresholdStatus).withDetail("thresholdsExceeded", exceeded);
		}
	}

}
