package io.github.redisqueue.actuate.endpoint;

import java.util.LinkedHashMap;
import java.util.Map;

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
 * is logged with the queue and the count it touched.
 *
 * <p>Like Spring Boot's own endpoints with side effects, its access is read-only by default:
 * exposing it exposes the reads only, and the writes need
 * {@code management.endpoint.queues.access=unrestricted}.
 *
 * @since 0.1.0
 */
@Endpoint(id = "queues", defaultAccess = Access.READ_ONLY)
public class QueuesEndpoint {

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
		return new QueueDetailsDescriptor(name, QueueDescriptor.of(this.operations.counts(name)),
				this.operations.deadLetters(name, (offset != null) ? offset : 0, (size != null) ? size : 20)
					.stream()
					.map(DeadJobDescriptor::of)
					.toList(),
				this.operations.workers().stream().filter((worker) -> worker.queues().contains(name)).toList());
	}

	@WriteOperation
	public QueueActionDescriptor act(@Selector String name, @Selector String action, @Nullable String id) {
		long count = switch (action) {
			case "pause" -> {
				this.operations.pause(name);
				yield 1;
			}
			case "resume" -> {
				this.operations.resume(name);
				yield 1;
			}
			case "retry-dead" -> (id != null) ? (this.operations.retryDead(name, id) ? 1 : 0)
					: this.operations.retryAllDead(name);
			case "purge-dead" -> (id != null) ? (this.operations.purgeDead(name, id) ? 1 : 0)
					: this.operations.purgeAllDead(name);
			default -> throw new InvalidEndpointRequestException(
					"Unknown action '" + action + "': use pause, resume, retry-dead or purge-dead", "Unknown action");
		};
		logger.info("Queue '{}': {} touched {} job(s) through the queues endpoint", name, action, count);
		return new QueueActionDescriptor(name, action, count);
	}

}
