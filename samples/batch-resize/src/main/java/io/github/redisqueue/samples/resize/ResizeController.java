package io.github.redisqueue.samples.resize;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.redisqueue.core.Batch;
import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.core.JobResult;
import io.github.redisqueue.core.QueueBatchException;
import io.github.redisqueue.core.QueueOperations;
import jakarta.annotation.PreDestroy;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Takes resize requests, shows their progress and results, and cancels them. A request is one
 * batch on queue {@code resize}; its id is the batch id.
 */
@RestController
public class ResizeController {

	static final String QUEUE = "resize";

	private static final Logger logger = LoggerFactory.getLogger(ResizeController.class);

	/** How often the progress stream reads the batch. */
	private static final Duration PROGRESS_EVERY = Duration.ofMillis(200);

	private final QueueOperations queues;

	private final ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor();

	ResizeController(QueueOperations queues) {
		this.queues = queues;
	}

	/**
	 * Split a request into its pieces and submit them as one batch.
	 * @param request the request
	 * @return 201 with the batch's status
	 */
	@PostMapping("/requests")
	ResponseEntity<BatchStatus> submit(@RequestBody ResizeRequest request) {
		if (request.pieces() < 1 || request.pieces() > 10_000) {
			throw new IllegalArgumentException("pieces must be from 1 to 10,000, not " + request.pieces());
		}
		List<Piece> pieces = IntStream.range(0, request.pieces()).mapToObj((i) -> new Piece(request.image(), i)).toList();
		Batch batch = this.queues.batch(QUEUE)
			.priority(request.priority())
			.maxConcurrency(request.maxConcurrency())
			.onComplete("resize-done", request)
			.addAll(pieces)
			.submit();
		logger.info("Request {} ({}): {} pieces submitted, at most {} at once", batch.id(), request.image(),
				request.pieces(), request.maxConcurrency());
		return ResponseEntity.created(URI.create("/requests/" + batch.id())).body(batch.status());
	}

	/**
	 * The progress of a request.
	 * @param id the request id
	 * @return its status
	 */
	@GetMapping("/requests/{id}")
	BatchStatus status(@PathVariable String id) {
		return this.queues.batch(QUEUE, id).status();
	}

	/**
	 * The results of a request's pieces, in order.
	 * @param id the request id
	 * @param offset the first piece
	 * @param count how many
	 * @return the results (null for a piece not done)
	 */
	@GetMapping("/requests/{id}/results")
	List<JobResult<ResizedPiece>> results(@PathVariable String id, @RequestParam(defaultValue = "0") long offset,
			@RequestParam(defaultValue = "100") int count) {
		return this.queues.batchResults(QUEUE, id, offset, count, ResizedPiece.class);
	}

	/**
	 * Cancel a request: pieces not started are dropped, running ones finish.
	 * @param id the request id
	 * @return its status after the call
	 */
	@DeleteMapping("/requests/{id}")
	BatchStatus cancel(@PathVariable String id) {
		return this.queues.cancelBatch(QUEUE, id);
	}

	/**
	 * Follow a request: a {@code progress} event with its status every 200 ms while it changes,
	 * then a {@code finished} event, and the stream ends.
	 * @param id the request id
	 * @return the event stream
	 */
	@GetMapping(path = "/requests/{id}/events", produces = "text/event-stream")
	SseEmitter events(@PathVariable String id) {
		Batch batch = this.queues.batch(QUEUE, id);
		batch.status(); // 404 before the stream opens when there is no such request
		SseEmitter emitter = new SseEmitter(Duration.ofMinutes(30).toMillis());
		ProgressStream stream = new ProgressStream(batch, emitter);
		stream.future = this.progress.scheduleWithFixedDelay(stream, 0, PROGRESS_EVERY.toMillis(), TimeUnit.MILLISECONDS);
		return emitter;
	}

	/** Sends a request's progress to one client until the request finishes or the client leaves. */
	private static final class ProgressStream implements Runnable {

		private final Batch batch;

		private final SseEmitter emitter;

		private long lastEnded = -1;

		private boolean done;

		private volatile @Nullable ScheduledFuture<?> future;

		ProgressStream(Batch batch, SseEmitter emitter) {
			this.batch = batch;
			this.emitter = emitter;
		}

		@Override
		public void run() {
			if (this.done) {
				stop();
				return;
			}
			try {
				BatchStatus status = this.batch.status();
				if (status.isFinished()) {
					this.done = true;
					this.emitter.send(SseEmitter.event().name("finished").data(status));
					this.emitter.complete();
					stop();
				}
				else if (status.ended() != this.lastEnded) {
					this.lastEnded = status.ended();
					this.emitter.send(SseEmitter.event().name("progress").data(status));
				}
			}
			catch (IOException | RuntimeException ex) {
				this.done = true;
				this.emitter.completeWithError(ex);
				stop();
			}
		}

		private void stop() {
			ScheduledFuture<?> scheduled = this.future;
			if (scheduled != null) {
				scheduled.cancel(false);
			}
		}

	}

	@ExceptionHandler(QueueBatchException.class)
	ResponseEntity<Map<String, String>> noSuchRequest(QueueBatchException ex) {
		HttpStatus status = ex.getMessage().contains("has no batch") ? HttpStatus.NOT_FOUND : HttpStatus.CONFLICT;
		return ResponseEntity.status(status).body(Map.of("error", ex.getMessage()));
	}

	@ExceptionHandler(IllegalArgumentException.class)
	ResponseEntity<Map<String, String>> badRequest(IllegalArgumentException ex) {
		return ResponseEntity.badRequest().body(Map.of("error", ex.getMessage()));
	}

	@PreDestroy
	void stop() {
		this.progress.shutdownNow();
	}

}
