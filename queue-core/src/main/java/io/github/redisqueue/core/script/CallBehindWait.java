package io.github.redisqueue.core.script;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.github.redisqueue.core.script.QueueScriptExecutor.AfterWait;
import io.github.redisqueue.core.script.QueueScriptExecutor.AheadOfWait;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A wait on a queue's wake-ups with a script call sent right behind it, and optionally one in front of it, in one
 * write on a connection of its own (see {@link QueueScriptExecutor#runAfterWait}).
 */
final class CallBehindWait {

	private final LettuceScriptCalls calls;

	CallBehindWait(LettuceScriptCalls calls) {
		this.calls = calls;
	}

	/**
	 * Waits ({@code BLMOVE} from {@code wake} to {@code woken}, up to {@code timeout}) with {@code script} sent behind
	 * the wait and {@code ahead} in front of it; {@code onReply}, when given, takes the call's reply where it arrives.
	 * See {@link QueueScriptExecutor#runAfterWait}.
	 * @return whether the wait took a wake-up, and the call's reply
	 */
	AfterWait run(RedisClusterAsyncCommands<byte[], byte[]> connection, byte[] wake, byte[] woken, Duration timeout,
			@Nullable AheadOfWait ahead, RedisScript<?> script, QueueKeys k, List<byte[]> args,
			@Nullable Consumer<List<Object>> onReply) {
		byte[][] keys = k.scriptKeys().toArray(byte[][]::new);
		byte[][] argv = QueueScriptExecutor.queueArgs(k, args).toArray(byte[][]::new);
		Duration callTimeout = this.calls.commandTimeout();
		long deadline = System.nanoTime() + timeout.toNanos() + callTimeout.toNanos();
		RedisFuture<List<Object>> first = null;
		RedisFuture<byte[]> wait = null;
		RedisFuture<List<Object>> call = null;
		CompletableFuture<Void> early = null;
		// the commands go out in one write: a connection of its own, used by one thread
		StatefulConnection<?, ?> stateful = (connection instanceof RedisAsyncCommands<?, ?> async)
				? async.getStatefulConnection() : null;
		try {
			try {
				if (stateful != null) {
					stateful.setAutoFlushCommands(false);
				}
				try {
					if (ahead != null) {
						first = this.calls.send(connection, ahead.script(), keys,
								QueueScriptExecutor.queueArgs(k, ahead.args()).toArray(byte[][]::new));
					}
					wait = connection.blmove(wake, woken, LMoveArgs.Builder.leftRight(),
							Math.max(1, timeout.toMillis()) / 1000.0);
					call = this.calls.send(connection, script, keys, argv);
					if (onReply != null) {
						// registered before the write leaves: it runs where the reply completes the call
						early = call.thenAccept(onReply).toCompletableFuture();
					}
				}
				finally {
					if (stateful != null) {
						try {
							stateful.flushCommands();
						}
						finally {
							stateful.setAutoFlushCommands(true);
						}
					}
				}
			}
			catch (RuntimeException ex) {
				DataAccessException failure = this.calls.translate(ex);
				if (ahead != null) {
					ahead.answered().accept(null, failure);
				}
				throw failure;
			}
			if (ahead != null && first != null) {
				List<Object> reply = null;
				RuntimeException failure = null;
				try {
					reply = this.calls.await(first, System.nanoTime() + callTimeout.toNanos(), callTimeout);
				}
				catch (RuntimeException ex) {
					failure = ex;
				}
				ahead.answered().accept(reply, failure);
			}
			// the replies come in the order of the commands: once the call's is in, the wait's is too, so the thread
			// wakes once when the wait ends, not once for each reply; with a handling of the reply, it waits for that
			// (a thread woken by a completed future runs the stages still pending on it: this one would take the
			// handling over from the I/O thread)
			if (early != null) {
				awaitDone(early, deadline);
			}
			else {
				this.calls.awaitDone(call, deadline);
			}
			boolean wokenUp = this.calls.await(wait, deadline, callTimeout) != null;
			List<Object> reply;
			try {
				reply = this.calls.await(call, deadline, callTimeout);
			}
			catch (DataAccessException ex) {
				reply = this.calls.recover(connection, script, keys, argv, ex, deadline, callTimeout);
			}
			return new AfterWait(wokenUp, (reply != null) ? reply : List.of());
		}
		finally {
			if (call != null && early != null && !early.isDone()) {
				// left before the reply (a failure, a timeout, an interrupt): its handling runs now or never, not later
				call.cancel(true);
				awaitSettled(early);
			}
		}
	}

	/** Waits until {@code future} is done or the deadline passed; an interrupt ends the wait and stays set. */
	private static void awaitDone(CompletableFuture<?> future, long deadline) {
		try {
			future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | CancellationException | TimeoutException ex) {
			// the awaits that follow report it
		}
	}

	/**
	 * Waits until the handling of a reply whose call is done (or cancelled) is over: it is short and never blocks,
	 * and what it did must be known, so an interrupt is kept for later rather than ending the wait.
	 */
	private static void awaitSettled(CompletableFuture<?> early) {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					early.get();
					return;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (ExecutionException | CancellationException ex) {
					return;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
