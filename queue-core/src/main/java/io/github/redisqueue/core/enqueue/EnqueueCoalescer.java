package io.github.redisqueue.core.enqueue;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

import io.github.redisqueue.core.EnqueueResult;
import org.jspecify.annotations.Nullable;

/**
 * Group commit of single enqueues. Calls that enqueue one job each, at the same moment, to the
 * same queue with the same options and headers, share one call of the enqueue script: the first
 * caller sends its job at once (alone, it waits for nothing); callers arriving while that call is
 * under way queue up, and the next of them sends them all in one call when it returns, each caller
 * getting its own result, or the call's failure (the script checks everything before its first
 * write, so a failed call enqueued none of them). Each thread sends at most one call: after its
 * own, it hands the turn to the next caller waiting.
 *
 * <p>The script's per-call work (loading its shared definitions, reading the sequence) is then
 * paid once for many jobs, which is what lets many producer threads enqueue faster than one
 * script call per job allows.
 */
final class EnqueueCoalescer {

	// completes a waiting request's future: its thread sends the next call
	private static final Object YOUR_TURN = new Object();

	private final Map<Key, Lane> lanes = new ConcurrentHashMap<>();

	private final int most;

	/**
	 * @param most the most jobs one call carries
	 */
	EnqueueCoalescer(int most) {
		this.most = Math.max(1, most);
	}

	/**
	 * Enqueue one serialized job, in a call shared with others of the same key.
	 * @param key what the jobs of one call share: the queue, the options (by identity), the headers
	 * @param payload the serialized job
	 * @param send sends the serialized jobs of one call and gives their results in order
	 * @return this job's result
	 */
	EnqueueResult enqueue(Key key, byte[] payload, Function<List<byte[]>, List<EnqueueResult>> send) {
		Lane lane = this.lanes.computeIfAbsent(key, (k) -> new Lane());
		Request request = new Request(payload);
		boolean lead;
		synchronized (lane) {
			lane.waiting.add(request);
			lead = !lane.sending;
			lane.sending = true;
		}
		if (!lead) {
			Object outcome = request.await();
			if (outcome != YOUR_TURN) {
				return Request.result(outcome);
			}
		}
		List<Request> batch = new ArrayList<>();
		synchronized (lane) {
			while (batch.size() < this.most && !lane.waiting.isEmpty()) {
				batch.add(lane.waiting.poll());
			}
		}
		// this thread's own job is in the batch (it was first in line); its outcome is kept here, as
		// its future already holds the turn
		Object own = null;
		// an interrupt of this thread must not fail the other callers' jobs of the call: it is kept
		// for this caller and the call is sent whole
		boolean interrupted = Thread.interrupted();
		try {
			List<EnqueueResult> results = send.apply(batch.stream().map(Request::payload).toList());
			for (int i = 0; i < batch.size(); i++) {
				if (batch.get(i) == request) {
					own = results.get(i);
				}
				else {
					batch.get(i).done.complete(results.get(i));
				}
			}
		}
		catch (Throwable ex) {
			own = new ExecutionException(ex);
			for (Request each : batch) {
				if (each != request) {
					each.done.completeExceptionally(ex);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
			Request next;
			synchronized (lane) {
				next = lane.waiting.peek();
				if (next == null) {
					lane.sending = false;
					// an idle lane goes (options are compared by identity: new ones each call must not
					// pile up); a caller that took it from the map just before sends on it alone
					this.lanes.remove(key, lane);
				}
			}
			if (next != null) {
				next.done.complete(YOUR_TURN);
			}
		}
		return Request.result(own);
	}

	/** How many single enqueues wait for a call under way to end (all keys). */
	int waitingCount() {
		int count = 0;
		for (Lane lane : this.lanes.values()) {
			synchronized (lane) {
				count += lane.waiting.size();
			}
		}
		return count;
	}

	/** What the jobs of one call share. */
	record Key(String queue, Object options, ByteBuffer headers) {

		static Key of(String queue, Object options, byte[] headers) {
			return new Key(queue, new Identity(options), ByteBuffer.wrap(headers));
		}

	}

	/** Equal only to itself: options have no equality of their own. */
	private record Identity(Object target) {

		@Override
		public boolean equals(Object other) {
			return other instanceof Identity identity && identity.target == this.target;
		}

		@Override
		public int hashCode() {
			return System.identityHashCode(this.target);
		}

	}

	private static final class Lane {

		private final ArrayDeque<Request> waiting = new ArrayDeque<>();

		private boolean sending;

	}

	private static final class Request {

		private final byte[] payload;

		// a result, YOUR_TURN, or the call's failure
		private final CompletableFuture<Object> done = new CompletableFuture<>();

		Request(byte[] payload) {
			this.payload = payload;
		}

		byte[] payload() {
			return this.payload;
		}

		/** Wait for the result or the turn; an interrupt is kept for the caller, not acted on. */
		Object await() {
			boolean interrupted = false;
			try {
				while (true) {
					try {
						return this.done.get();
					}
					catch (InterruptedException ex) {
						interrupted = true;
					}
					catch (ExecutionException ex) {
						return ex;
					}
				}
			}
			finally {
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
		}

		static EnqueueResult result(@Nullable Object outcome) {
			if (outcome instanceof ExecutionException failure) {
				Throwable cause = failure.getCause();
				if (cause instanceof RuntimeException runtime) {
					throw runtime;
				}
				if (cause instanceof Error error) {
					throw error;
				}
				throw new IllegalStateException(cause);
			}
			return (EnqueueResult) outcome;
		}

	}

}
