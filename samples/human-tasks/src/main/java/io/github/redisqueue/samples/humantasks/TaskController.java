package io.github.redisqueue.samples.humantasks;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.EnqueueResult;
import io.github.redisqueue.core.ExtendResult;
import io.github.redisqueue.core.Job;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueCounts;
import io.github.redisqueue.core.QueueTemplate;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * The pull API over HTTP: create, take (reserve under a lease), finish, give back, keep.
 * A stale token (the lease ran out and the task went to someone else) answers 409 Conflict.
 */
@RestController
@RequestMapping("/tasks")
public class TaskController {

	static final String QUEUE = "reviews";

	private final QueueTemplate queues;

	private final QueueAdminOperations admin;

	private final Duration defaultLease;

	public TaskController(QueueTemplate queues, QueueAdminOperations admin,
			@Value("${sample.lease:60s}") Duration defaultLease) {
		this.queues = queues;
		this.admin = admin;
		this.defaultLease = defaultLease;
	}

	/** A taken task, with what the browser needs to finish it. */
	public record TakenTask(String id, long token, String title, String details, int attempt, Instant leaseUntil) {

		static TakenTask of(Job<Task> job) {
			return new TakenTask(job.id(), job.ref().token(), job.payload().title(), job.payload().details(),
					job.meta().attempt(), job.meta().leaseUntil());
		}

	}

	@PostMapping
	@ResponseStatus(HttpStatus.CREATED)
	public EnqueueResult create(@RequestBody Task task) {
		return this.queues.enqueue(QUEUE, task, JobOptions.builder().maxAttempts(100).build());
	}

	@PostMapping("/take")
	public ResponseEntity<TakenTask> take(@RequestParam(required = false) Duration lease) {
		List<Job<Task>> jobs = this.queues.reserve(QUEUE, 1, (lease != null) ? lease : this.defaultLease, Task.class);
		return jobs.isEmpty() ? ResponseEntity.noContent().build() : ResponseEntity.ok(TakenTask.of(jobs.get(0)));
	}

	@PostMapping("/{id}/done")
	public ResponseEntity<Void> done(@PathVariable String id, @RequestParam long token) {
		return status(this.queues.complete(QUEUE, new JobRef(id, token)));
	}

	@PostMapping("/{id}/give-back")
	public ResponseEntity<Void> giveBack(@PathVariable String id, @RequestParam long token) {
		return status(this.queues.release(QUEUE, new JobRef(id, token)));
	}

	@PostMapping("/{id}/keep")
	public ResponseEntity<ExtendResult> keep(@PathVariable String id, @RequestParam long token,
			@RequestParam(required = false) Duration lease) {
		ExtendResult result = this.queues.extend(QUEUE, new JobRef(id, token), (lease != null) ? lease : this.defaultLease);
		return result.extended() ? ResponseEntity.ok(result) : ResponseEntity.status(code(result.result())).build();
	}

	@GetMapping
	public QueueCounts counts() {
		return this.admin.counts(QUEUE);
	}

	private static ResponseEntity<Void> status(AckResult result) {
		return (result == AckResult.OK) ? ResponseEntity.noContent().build() : ResponseEntity.status(code(result)).build();
	}

	private static HttpStatus code(AckResult result) {
		return (result == AckResult.STALE_TOKEN) ? HttpStatus.CONFLICT : HttpStatus.NOT_FOUND;
	}

}
