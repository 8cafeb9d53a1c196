package io.github.redisqueue.core.batch;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.redisqueue.core.BatchState;
import io.github.redisqueue.core.BatchStatus;
import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueBatchException;
import io.github.redisqueue.core.engine.QueueContext;
import io.github.redisqueue.core.enqueue.JobEnqueuer;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.ScriptReplies;
import io.github.redisqueue.core.wakeup.QueueWakeups;
import io.github.redisqueue.support.BatchCompletion;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static io.github.redisqueue.core.script.ScriptArgs.encodeNumber;
import static io.github.redisqueue.core.script.ScriptReplies.asLong;
import static io.github.redisqueue.core.script.ScriptReplies.bytes;
import static io.github.redisqueue.core.script.ScriptReplies.text;

/**
 * The two ends of a finished batch. The hand-off: the script that ends a batch's last sub-job
 * records the batch in the queue's hand-off set; any client that sees the set non-empty (a fetch
 * loop's reserve, a completion, the reaper, a seal or a cancel) enqueues the completion job to
 * the completion queue with an idempotency key made of the batch's queue, id and creation time,
 * then removes the entry. Two clients doing it at once, or a client that dies between the two
 * steps, cannot make two completion jobs: the idempotency key returns the first. So the hand-off
 * works when the completion queue lives in another cluster slot. The watchers: futures of
 * producers waiting for a batch, completed on the pub/sub notification the script publishes, or
 * by a read every {@link #POLL} as a fallback (a message lost to a reconnect).
 */
public final class BatchCompletions {

	/** How often watched batches are read when no notification arrives. */
	public static final Duration POLL = Duration.ofSeconds(2);

	private static final Logger logger = LoggerFactory.getLogger(BatchCompletions.class);

	private static final int PAGE = 100;

	private final QueueContext context;

	private final JobEnqueuer enqueuer;

	private final QueueBatches batches;

	private final Set<String> forwarding = ConcurrentHashMap.newKeySet();

	private final ConcurrentMap<Watched, CompletableFuture<BatchStatus>> watched = new ConcurrentHashMap<>();

	private final Set<String> subscribed = ConcurrentHashMap.newKeySet();

	private @Nullable RedisMessageListenerContainer listeners;

	private @Nullable ScheduledExecutorService poller;

	public BatchCompletions(QueueContext context, JobEnqueuer enqueuer, QueueBatches batches) {
		this.context = context;
		this.enqueuer = enqueuer;
		this.batches = batches;
	}

	/**
	 * Hand off the completion jobs of the queue's finished batches; skipped when this template
	 * is already doing so for the queue. Failures are logged: the entries stay for the next try.
	 * @param queue the queue of the batches
	 * @param k the keys of the partition of the queue that holds them
	 * @return how many completion jobs this call handed off
	 */
	public int forward(String queue, QueueKeys k) {
		if (!this.forwarding.add(k.name())) {
			return 0;
		}
		try {
			int handed = 0;
			while (true) {
				// first whether the call stopped at its byte budget, then the entries
				List<Object> reply = this.batches.run(k, "pending", "", encodeNumber(PAGE));
				boolean cut = !reply.isEmpty() && asLong(reply.get(0)) == 1;
				int entries = 0;
				for (int at = 1; at + ScriptReplies.BATCH_PENDING_STRIDE <= reply.size(); at += ScriptReplies.BATCH_PENDING_STRIDE) {
					handOff(queue, reply, at);
					handed++;
					entries++;
				}
				if (entries == 0 || (!cut && entries < PAGE)) {
					return handed;
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Handing off completion jobs of batches of queue '{}' failed; the next try repeats it: {}",
					queue, ex.toString());
			return 0;
		}
		finally {
			this.forwarding.remove(k.name());
		}
	}

	/** One 'pending' entry: "id, state, total, completed, dead, cancelled, completion queue, completion payload, priority, finished at, created at". */
	private void handOff(String queue, List<Object> reply, int at) {
		String id = text(reply.get(at));
		BatchCompletion completion = new BatchCompletion(queue, id,
				BatchState.of(text(reply.get(at + 1))) == BatchState.CANCELLED, asLong(reply.get(at + 2)),
				asLong(reply.get(at + 3)), asLong(reply.get(at + 4)), asLong(reply.get(at + 5)));
		String target = text(reply.get(at + 6));
		byte[] payload = bytes(reply.get(at + 7));
		if (payload.length == 0) {
			payload = this.context.serializer().serialize(completion);
		}
		JobOptions options = JobOptions.builder()
			.priority((int) asLong(reply.get(at + 8)))
			.idempotencyKey("batch:" + queue + ":" + id + ":" + text(reply.get(at + 10)))
			.headers(completion.toHeaders())
			.build();
		this.enqueuer.enqueueSerialized(target, List.of(payload), options, options.getHeaders());
		this.batches.run(queue, "handed", id);
	}

	/**
	 * A future of the batch's final status.
	 * @param queue the queue
	 * @param id the batch id
	 * @return the future
	 */
	public CompletableFuture<BatchStatus> watch(String queue, String id) {
		Watched key = new Watched(queue, id);
		CompletableFuture<BatchStatus> future = this.watched.computeIfAbsent(key, (k) -> new CompletableFuture<>());
		future.whenComplete((status, ex) -> this.watched.remove(key, future));
		start(queue);
		check(key, future);
		return future;
	}

	private synchronized void start(String queue) {
		if (this.poller == null) {
			this.poller = Executors.newSingleThreadScheduledExecutor((task) -> {
				Thread thread = new Thread(task, "redis-queue-batch-watch");
				thread.setDaemon(true);
				return thread;
			});
			this.poller.scheduleWithFixedDelay(this::checkAll, POLL.toMillis(), POLL.toMillis(), TimeUnit.MILLISECONDS);
		}
		if (this.subscribed.add(queue)) {
			try {
				if (this.listeners == null) {
					this.listeners = QueueWakeups.startListeners(this.context.connectionFactory(),
							"redis-queue-batch-events");
				}
				MessageListener listener = (message, pattern) -> notified(queue, message);
				for (QueueKeys k : this.context.partitions(queue)) {
					this.listeners.addMessageListener(listener, new ChannelTopic(k.batchChannel()));
				}
			}
			catch (RuntimeException ex) {
				logger.warn("Cannot subscribe to batch notifications of queue '{}'; batches are read every {} instead: {}",
						queue, POLL, ex.toString());
			}
		}
	}

	private void notified(String queue, Message message) {
		String id = new String(message.getBody(), StandardCharsets.UTF_8);
		Watched key = new Watched(queue, id);
		CompletableFuture<BatchStatus> future = this.watched.get(key);
		if (future != null) {
			check(key, future);
		}
	}

	private void checkAll() {
		this.watched.forEach(this::check);
	}

	private void check(Watched key, CompletableFuture<BatchStatus> future) {
		try {
			Optional<BatchStatus> status = this.batches.status(key.queue(), key.id());
			if (status.isEmpty()) {
				future.completeExceptionally(QueueBatchException.missing(key.queue(), key.id()));
			}
			else if (status.get().isFinished()) {
				future.complete(status.get());
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Reading batch '{}' of queue '{}' failed; the next read repeats it", key.id(), key.queue(), ex);
		}
	}

	/** Stop the notification listener and the fallback reads; pending futures stay incomplete. */
	public synchronized void stop() {
		if (this.poller != null) {
			this.poller.shutdownNow();
			this.poller = null;
		}
		if (this.listeners != null) {
			try {
				this.listeners.destroy();
			}
			catch (Exception ex) {
				logger.debug("Stopping the batch notification listener failed", ex);
			}
			this.listeners = null;
		}
		this.subscribed.clear();
	}

	private record Watched(String queue, String id) {
	}

}
