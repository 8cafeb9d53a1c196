package io.github.redisqueue.actuate.endpoint;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.core.JobIds;
import io.github.redisqueue.core.PartitionCounts;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueBatchException;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.RateLimit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code queues} Actuator endpoint. Read: every queue with its counts
 * ({@code GET /actuator/queues}); one queue with a page of dead letters, a page of its open
 * batches and its live workers
 * ({@code GET /actuator/queues/{name}?offset=0&size=20&batchOffset=0&batchSize=20}); one batch,
 * open or finished ({@code GET /actuator/queues/{name}/batches/{id}}, 404 when there is none);
 * one job with its state, attempts and progress ({@code GET /actuator/queues/{name}/jobs/{id}},
 * 404 when there is none).
 * Write: {@code POST /actuator/queues/{name}/{action}} with action {@code pause},
 * {@code resume}, {@code retry-dead} or {@code purge-dead} (optionally {@code id} for one dead
 * job), or {@code cancel-batch} with the batch's {@code id}. Every write is logged with the queue
 * and what it changed.
 *
 * <p>Like Spring Boot's own endpoints with side effects, its access is read-only by default:
 * exposing it exposes the reads only, and the writes need
 * {@code management.endpoint.queues.access=unrestricted}. An invalid queue name, page, action,
 * job id or batch is refused as an invalid request (400 over HTTP) whose reason names the rule.
 *
 * @since 0.1.0
 */
@Endpoint(id = "queues", defaultAccess = Access.READ_ONLY)
public class QueuesEndpoint {

	/** Dead letters or batches on one page when the request names no size. */
	static final int DEFAULT_PAGE_SIZE = 20;

	/** The path segment below a queue that names its batches. */
	static final String BATCHES = "batches";

	/** The path segment below a queue that names its jobs. */
	static final String JOBS = "jobs";

	private static final Logger logger = LoggerFactory.getLogger(QueuesEndpoint.class);

	private final QueueAdminOperations operations;

	private final Function<String, @Nullable RateLimit> rateLimits;

	/**
	 * The endpoint on the given administration, showing no rate limits.
	 * @param operations the administration of the queues
	 */
	public QueuesEndpoint(QueueAdminOperations operations) {
		this(operations, (queue) -> null);
	}

	/**
	 * The endpoint on the given administration, showing each queue's rate limit as the given
	 * settings have it.
	 * @param operations the administration of the queues
	 * @param settings the engine settings of this application
	 */
	public QueuesEndpoint(QueueAdminOperations operations, QueueSettings settings) {
		this(operations, settings::rateLimit);
	}

	private QueuesEndpoint(QueueAdminOperations operations, Function<String, @Nullable RateLimit> rateLimits) {
		this.operations = operations;
		this.rateLimits = rateLimits;
	}

	/**
	 * Every queue with its counts.
	 * @return the counts by queue name
	 */
	@ReadOperation
	public Map<String, QueueDescriptor> queues() {
		Map<String, QueueDescriptor> queues = new LinkedHashMap<>();
		this.operations.overview().queues().forEach((name, counts) -> queues.put(name,
				QueueDescriptor.of(counts, this.rateLimits.apply(name))));
		return queues;
	}

	/**
	 * One queue: its counts, a page of dead letters (most recent first), a page of its open
	 * batches (oldest first) and the live workers that consume it.
	 * @param name the queue name
	 * @param offset dead letters to skip (0 when absent)
	 * @param size most dead letters to show (20 when absent)
	 * @param batchOffset open batches to skip (0 when absent)
	 * @param batchSize most open batches to show (20 when absent), at most
	 * {@value QueueAdmin#MAX_BATCH_PAGE}
	 * @return the queue in detail
	 */
	@ReadOperation
	public QueueDetailsDescriptor queue(@Selector String name, @Nullable Integer offset, @Nullable Integer size,
			@Nullable Integer batchOffset, @Nullable Integer batchSize) {
		int from = (offset != null) ? offset : 0;
		int count = (size != null) ? size : DEFAULT_PAGE_SIZE;
		checkPage("Dead-letter", from, count, QueueAdmin.MAX_DEAD_LETTER_PAGE);
		int batchFrom = (batchOffset != null) ? batchOffset : 0;
		int batchCount = (batchSize != null) ? batchSize : DEFAULT_PAGE_SIZE;
		checkPage("Batch", batchFrom, batchCount, QueueAdmin.MAX_BATCH_PAGE);
		return checked(() -> new QueueDetailsDescriptor(name,
				QueueDescriptor.of(this.operations.counts(name), this.rateLimits.apply(name)),
				this.operations.deadLetters(name, from, count).stream().map(DeadJobDescriptor::of).toList(),
				this.operations.batches(name, batchFrom, batchCount).stream().map(BatchDescriptor::of).toList(),
				this.operations.workers().stream().filter((worker) -> worker.queues().contains(name)).toList(),
				partitions(name)));
	}

	private List<PartitionDescriptor> partitions(String name) {
		List<PartitionCounts> partitions = this.operations.partitionCounts(name);
		return (partitions.size() > 1) ? partitions.stream().map(PartitionDescriptor::of).toList() : List.of();
	}

	/**
	 * One batch or one job of a queue: {@code GET /actuator/queues/{name}/batches/{id}} (see
	 * {@link #batch}) or {@code GET /actuator/queues/{name}/jobs/{id}} (see {@link #job}).
	 * @param name the queue name
	 * @param part {@code batches} or {@code jobs}
	 * @param id the batch or job id
	 * @return the batch or the job, or {@code null} (404) when there is none
	 */
	@ReadOperation
	public @Nullable Object part(@Selector String name, @Selector String part, @Selector String id) {
		return JOBS.equals(part) ? job(name, id) : batch(name, part, id);
	}

	/**
	 * One batch of a queue, open or finished (while it is kept).
	 * @param name the queue name
	 * @param part {@code batches}
	 * @param id the batch id
	 * @return the batch with its progress, or {@code null} (404) when there is none
	 */
	public @Nullable BatchDescriptor batch(String name, String part, String id) {
		if (!BATCHES.equals(part)) {
			throw invalid("Unknown part '" + part + "' of a queue: use " + BATCHES + " or " + JOBS);
		}
		return checked(() -> this.operations.batch(name, id).map(BatchDescriptor::of).orElse(null));
	}

	/**
	 * One job of a queue, in any state: its state, attempts, progress, lease, last error,
	 * headers and payload.
	 * @param name the queue name
	 * @param id the job id
	 * @return the job, or {@code null} (404) when there is none
	 */
	public @Nullable JobDescriptor job(String name, String id) {
		return checked(() -> this.operations.job(name, JobIds.validate(id)).map(JobDescriptor::of).orElse(null));
	}

	/**
	 * An administrative action on one queue.
	 * @param name the queue name
	 * @param action {@code pause}, {@code resume}, {@code retry-dead}, {@code purge-dead} or
	 * {@code cancel-batch}
	 * @param id for {@code retry-dead} and {@code purge-dead}, one dead job (all when absent);
	 * for {@code cancel-batch}, the batch
	 * @return what the action did
	 */
	@WriteOperation
	public QueueActionDescriptor act(@Selector String name, @Selector String action, @Nullable String id) {
		return checked(() -> switch (action) {
			case "pause" -> stateChange(name, action, this.operations.pause(name));
			case "resume" -> stateChange(name, action, this.operations.resume(name));
			case "retry-dead" -> jobs(name, action, (id != null)
					? (this.operations.retryDead(name, JobIds.validate(id)) ? 1 : 0) : this.operations.retryAllDead(name));
			case "purge-dead" -> jobs(name, action, (id != null)
					? (this.operations.purgeDead(name, JobIds.validate(id)) ? 1 : 0) : this.operations.purgeAllDead(name));
			case "cancel-batch" -> cancelBatch(name, id);
			default -> throw invalid("Unknown action '" + action
					+ "': use pause, resume, retry-dead, purge-dead or cancel-batch");
		});
	}

	private QueueActionDescriptor cancelBatch(String name, @Nullable String id) {
		if (id == null) {
			throw invalid("cancel-batch needs the id of the batch, as {\"id\":\"...\"}");
		}
		BatchStatus batch;
		try {
			batch = this.operations.cancelBatch(name, id);
		}
		catch (QueueBatchException ex) {
			throw invalid(ex.getMessage());
		}
		logger.info("Queue '{}': cancel-batch through the queues endpoint left batch '{}' {}, {} sub-job(s) removed "
				+ "before they ran", name, id, batch.state(), batch.cancelled());
		return new QueueActionDescriptor(name, "cancel-batch", batch.cancelled());
	}

	private static QueueActionDescriptor stateChange(String name, String action, boolean changed) {
		if (changed) {
			logger.info("Queue '{}': {} through the queues endpoint changed its state", name, action);
		}
		else {
			logger.info("Queue '{}': {} through the queues endpoint changed nothing (already {})", name, action,
					action.equals("pause") ? "paused" : "running");
		}
		return new QueueActionDescriptor(name, action, changed ? 1 : 0);
	}

	private static QueueActionDescriptor jobs(String name, String action, long count) {
		logger.info("Queue '{}': {} touched {} job(s) through the queues endpoint", name, action, count);
		return new QueueActionDescriptor(name, action, count);
	}

	private static void checkPage(String what, int offset, int size, int max) {
		if (offset < 0) {
			throw invalid(what + " page offset " + offset + " is invalid: it must be 0 or more");
		}
		if (size < 1 || size > max) {
			throw invalid(what + " page size " + size + " is out of range: it must be from 1 to " + max);
		}
	}


	/** Run an engine call, turning its refusal of an argument into an invalid request. */
	private static <T> T checked(Supplier<T> call) {
		try {
			return call.get();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage(), ex);
		}
	}

	private static InvalidEndpointRequestException invalid(String message) {
		return new InvalidEndpointRequestException(message, message);
	}

}
