package io.github.redisqueue.samples.benchmark;

import java.util.List;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.QueueListenerContainer;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * The drain of a backlog through {@code @QueueListener}, from a cold and from a warm container,
 * and the thin loop's drain. A drain is timed until every job was handled and its completion is
 * recorded in Redis (the queue's running total of completed jobs), not only until the handler ran.
 * <ul>
 * <li>Cold: the backlog is enqueued first, then the container is started inside the timing (its
 * connections, threads and first reserve included), as an application that starts on a waiting
 * queue sees it.</li>
 * <li>Warm: the container is started and idle, the queue is paused, the backlog enqueued, and the
 * timing starts when the queue is resumed, as a running application sees a burst.</li>
 * </ul>
 * The warm container then serves the latency phase: started and idle, as in a running application.
 */
final class DrainPhase {

	private final RedisUnderTest redis;

	private final QueueTemplate queues;

	private final QueueAdmin admin;

	private final int concurrency;

	DrainPhase(RedisUnderTest redis, QueueTemplate queues, int concurrency) {
		this.redis = redis;
		this.queues = queues;
		this.admin = new QueueAdmin(queues);
		this.concurrency = concurrency;
	}

	/**
	 * The cold drain of {@code n} jobs.
	 * @return jobs delivered twice, and never delivered
	 */
	long[] cold(Figures figures, int n) {
		this.redis.flushAll();
		enqueueBacklog(n);
		BenchListener listener = new BenchListener();
		try (AnnotationConfigApplicationContext context = QueueBenchmark.listenerContext(this.queues,
				this.concurrency, listener)) {
			QueueListenerContainer container = QueueBenchmark.container(context);
			Measure measure = Measure.start(this.redis);
			container.start();
			awaitAcknowledged(listener, n);
			measure.stop(figures, n);
			container.stop();
		}
		return new long[] { listener.duplicates(), n - listener.handled() };
	}

	/**
	 * The warm drain of {@code n} jobs, then {@code latency} (if not null) on the same container.
	 * @return jobs delivered twice, and never delivered
	 */
	long[] warm(Figures figures, int n, LatencyPhase latency) {
		this.redis.flushAll();
		BenchListener listener = new BenchListener();
		long expected = n;
		try (AnnotationConfigApplicationContext context = QueueBenchmark.listenerContext(this.queues,
				this.concurrency, listener)) {
			QueueListenerContainer container = QueueBenchmark.container(context);
			container.start();
			Measure.awaitBlocked(this.redis, 1);
			this.admin.pause(BenchListener.QUEUE);
			enqueueBacklog(n);
			Measure.awaitBlocked(this.redis, 1);
			Measure measure = Measure.start(this.redis);
			this.admin.resume(BenchListener.QUEUE);
			awaitAcknowledged(listener, n);
			measure.stop(figures, n);
			if (latency != null) {
				latency.ours(this.queues, listener, n);
				expected += latency.jobs();
				awaitAcknowledged(listener, expected);
			}
			container.stop();
		}
		return new long[] { listener.duplicates(), expected - listener.handled() };
	}

	/** The thin loop's drain: C consumers, each LMOVE to a processing list then LREM, no lease. */
	void thin(ThinLoop thin, Figures figures, int n) throws Exception {
		this.redis.flushAll();
		for (List<BenchPayload> chunk : QueueBenchmark.chunks(n, 1000)) {
			thin.pushAll(chunk);
		}
		Measure measure = Measure.start(this.redis);
		long taken = thin.drain();
		measure.stop(figures, n);
		if (taken != n) {
			throw new IllegalStateException("thin loop drained " + taken + " of " + n + " jobs");
		}
	}

	private void enqueueBacklog(int n) {
		for (List<BenchPayload> chunk : QueueBenchmark.chunks(n, 1000)) {
			this.queues.enqueueAll(BenchListener.QUEUE, chunk, JobOptions.defaults());
		}
	}

	/** Until {@code n} jobs were handled and Redis counts them completed. */
	private void awaitAcknowledged(BenchListener listener, long n) {
		QueueBenchmark.await(() -> listener.handled() >= n
				&& this.admin.counts(BenchListener.QUEUE).total("completed") >= n);
	}

}
