package io.github.redisqueue.actuate.endpoint;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueAdminOperations;
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
 * ({@code GET /actuator/queues}); one queue with a page of dead letters and its live workers
 * ({@code GET /actuator/queues/{name}?offset=0&size=20}). Write: {@code POST
 * /actuator/queues/{name}/{action}} with action {@code pause}, {@code resume},
 * {@code retry-dead} or {@code purge-dead} (optionally {@code id} for one dead job). Every write
 * is logged with the queue and what it changed.
 *
 * <p>Like Spring Boot's own endpoints with side effects, its access is read-only by default:
 * exposing it exposes the reads only, and the writes need
 * {@code management.endpoint.queues.access=unrestricted}. An invalid queue name, dead-letter
 * page or action is refused as an invalid request (400 over HTTP) whose reason names the rule.
 *
 * @since 0.1.0
 */
@Endpoint(id = "queues", defaultAccess = Access.READ_ONLY)
public class QueuesEndpoint {

	/** Dead letters on one page when the request names no size. */
	static final int DEFAULT_PAGE_SIZE = 20;

	private static final Logger logger = LoggerFactory.getLogger(QueuesEndpoint.class);

	private final QueueAdminOperations operations;

	public QueuesEndpoint(QueueAdminOperations operations) {
		this.operations = operations;
	}

	@ReadOperation
	public Map<String, QueueDescriptor> queues() {
		Map<String, QueueDescriptor> queues = new LinkedHashMap<>();
		this.operations.overview().queues().forEach((name, counts) -> queues.put(name, QueueDescriptor.of(counts)));
		return queues;
	}

	@ReadOperation
	public QueueDetailsDescriptor queue(@Selector String name, @Nullable Integer offset, @Nullable Integer size) {
		int from = (offset != null) ? offset : 0;
		int count = (size != null) ? size : DEFAULT_PAGE_SIZE;
		if (from < 0) {
			throw invalid("Dead-letter page offset " + from + " is invalid: it must be 0 or more");
		}
		if (count < 1 || count > QueueAdmin.MAX_DEAD_LETTER_PAGE) {
			throw invalid("Dead-letter page size " + count + " is out of range: it must be from 1 to "
					+ QueueAdmin.MAX_DEAD_LETTER_PAGE);
		}
		return checked(() -> new QueueDetailsDescriptor(name, QueueDescriptor.of(this.operations.counts(name)),
				this.operations.deadLetters(name, from, count).stream().map(DeadJobDescriptor::of).toList(),
				this.operations.workers().stream().filter((worker) -> worker.queues().contains(name)).toList()));
	}

	@WriteOperation
	public QueueActionDescriptor act(@Selector String name, @Selector String action, @Nullable String id) {
		return checked(() -> switch (action) {
			case "pause" -> stateChange(name, action, this.operations.pause(name));
			case "resume" -> stateChange(name, action, this.operations.resume(name));
			case "retry-dead" -> jobs(name, action, (id != null) ? (this.operations.retryDead(name, id) ? 1 : 0)
					: this.operations.retryAllDead(name));
			case "purge-dead" -> jobs(name, action, (id != null) ? (this.operations.purgeDead(name, id) ? 1 : 0)
					: this.operations.purgeAllDead(name));
			default -> throw invalid("Unknown action '" + action + "': use pause, resume, retry-dead or purge-dead");
		});
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
