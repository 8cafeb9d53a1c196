package io.github.redisqueue.samples.resize;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redisqueue.annotation.QueueListener;
import io.github.redisqueue.support.BatchCompletion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * The two listeners: one resizes a tile (its return value is stored as the sub-job's result), the
 * other hears once of each finished request.
 */
@Component
public class Resizer {

	private static final Logger logger = LoggerFactory.getLogger(Resizer.class);

	private final AtomicInteger running = new AtomicInteger();

	private final AtomicInteger mostRunning = new AtomicInteger();

	private final List<String> finished = new CopyOnWriteArrayList<>();

	/**
	 * Resize one tile (simulated: a few to a hundred milliseconds of work).
	 * @param piece the tile
	 * @return the resized tile
	 * @throws InterruptedException if the container stops meanwhile
	 */
	@QueueListener(id = "resizer", value = "resize")
	public ResizedPiece resize(Piece piece) throws InterruptedException {
		this.mostRunning.accumulateAndGet(this.running.incrementAndGet(), Math::max);
		try {
			Thread.sleep(ThreadLocalRandom.current().nextInt(5, 100));
			return new ResizedPiece(piece.index(), piece.image() + "." + piece.index() + ".small.png",
					ThreadLocalRandom.current().nextLong(10_000, 50_000));
		}
		finally {
			this.running.decrementAndGet();
		}
	}

	/**
	 * The completion job of a request's batch: its payload is the request, the counts come as a
	 * {@link BatchCompletion}.
	 * @param request the request
	 * @param batch how the batch ended
	 */
	@QueueListener(id = "resize-done", value = "resize-done")
	public void done(ResizeRequest request, BatchCompletion batch) {
		logger.info("Request {} ({}) {}: {} of {} pieces completed, {} dead, {} cancelled", batch.batchId(),
				request.image(), batch.cancelled() ? "cancelled" : "done", batch.completed(), batch.total(),
				batch.dead(), batch.cancelledJobs());
		this.finished.add(batch.batchId());
	}

	/** Ids of the requests whose completion job ran, in order. */
	public List<String> finished() {
		return this.finished;
	}

	/** The most tiles this application resized at once. */
	public int mostRunning() {
		return this.mostRunning.get();
	}

}
