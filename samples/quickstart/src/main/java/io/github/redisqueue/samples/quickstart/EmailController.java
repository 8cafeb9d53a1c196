package io.github.redisqueue.samples.quickstart;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redisqueue.core.DeadJob;
import io.github.redisqueue.core.EnqueueResult;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueCounts;
import io.github.redisqueue.core.QueueTemplate;

import org.springframework.aot.hint.annotation.RegisterReflectionForBinding;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Enqueues e-mails and shows the queue. The counts go out inside a {@code Map}, where Spring
 * cannot see their type ahead of time: {@code @RegisterReflectionForBinding} lets a native image
 * write them as JSON.
 */
@RestController
@RegisterReflectionForBinding(QueueCounts.class)
public class EmailController {

	private final QueueTemplate queues;

	private final QueueAdminOperations admin;

	private final EmailSender sender;

	public EmailController(QueueTemplate queues, QueueAdminOperations admin, EmailSender sender) {
		this.queues = queues;
		this.admin = admin;
		this.sender = sender;
	}

	/** Enqueue one e-mail, optionally delayed. */
	@PostMapping("/emails")
	@ResponseStatus(HttpStatus.ACCEPTED)
	public EnqueueResult enqueue(@RequestBody Email email, @RequestParam(defaultValue = "0") long delaySeconds) {
		JobOptions options = JobOptions.builder().delay(Duration.ofSeconds(delaySeconds)).build();
		return this.queues.enqueue("emails", email, options);
	}

	/** Enqueue {@code count} e-mails in one round trip. */
	@PostMapping("/emails/bulk")
	@ResponseStatus(HttpStatus.ACCEPTED)
	public Map<String, Object> bulk(@RequestParam(defaultValue = "100") int count) {
		List<Email> emails = java.util.stream.IntStream.range(0, count)
			.mapToObj((i) -> new Email("user" + i + "@example.com", "Newsletter #" + i))
			.toList();
		return Map.of("enqueued", this.queues.enqueueAll("emails", emails, JobOptions.defaults()).size());
	}

	/** Counts of the queue, what was sent, and the latest dead letters. */
	@GetMapping("/emails")
	public Map<String, Object> status() {
		QueueCounts counts = this.admin.counts("emails");
		Map<String, Object> status = new LinkedHashMap<>();
		status.put("counts", counts);
		status.put("sent", this.sender.sent());
		status.put("dead", this.admin.deadLetters("emails", 0, 10).stream().map(EmailController::describe).toList());
		return status;
	}

	private static Map<String, Object> describe(DeadJob job) {
		return Map.of("id", job.id(), "payload", job.payloadAsString(), "attempts", job.attempts(), "error", job.error(),
				"diedAt", job.diedAt().toString());
	}

}
