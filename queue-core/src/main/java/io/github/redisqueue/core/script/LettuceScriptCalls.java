package io.github.redisqueue.core.script;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redisqueue.core.QueueScripts;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;

/**
 * The calls of {@link QueueScriptExecutor} on a Lettuce connection: a queue's script as a function
 * of the scripts' library ({@code FCALL}) or by SHA, what follows when Redis lost or refuses what
 * it runs (the library loaded again, the script run instead, Functions turned off), and the wait
 * for an answer, translated as the connection factory translates.
 */
final class LettuceScriptCalls {

	private static final Logger logger = LoggerFactory.getLogger(QueueScriptExecutor.class);

	private final RedisConnectionFactory connectionFactory;

	private final QueueScripts scripts;

	// false when the scripts say so, or once Redis refused Functions: scripts by SHA from then on
	private volatile boolean functions;

	LettuceScriptCalls(RedisConnectionFactory connectionFactory, QueueScripts scripts) {
		this.connectionFactory = connectionFactory;
		this.scripts = scripts;
		this.functions = scripts.functions();
	}

	/**
	 * Loads the library on every master of a cluster, or on the server; a node that refuses it
	 * turns Functions off (see {@link #loadLibrary}).
	 * @return {@code true}
	 */
	Boolean loadLibraryEverywhere(RedisClusterAsyncCommands<byte[], byte[]> async) {
		if (async instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
			for (RedisClusterNode node : cluster.getStatefulConnection().getPartitions()) {
				if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
					@SuppressWarnings("unchecked")
					RedisClusterAsyncCommands<byte[], byte[]> master = (RedisClusterAsyncCommands<byte[], byte[]>) cluster
						.getConnection(node.getNodeId());
					loadLibrary(master);
				}
			}
		}
		else {
			loadLibrary(async);
		}
		return Boolean.TRUE;
	}

	/**
	 * Sends one call of {@code script}: its function with {@code FCALL} while the executor uses
	 * Functions and the library holds it, else the script by SHA.
	 */
	RedisFuture<List<Object>> send(RedisClusterAsyncCommands<byte[], byte[]> async, RedisScript<?> script,
			byte[][] keys, byte[][] argv) {
		// the same command as async.fcall / async.evalsha, its arguments written without Lettuce's
		// per-argument objects (see ScriptCallArgs); the rarer calls of recover keep Lettuce's own
		String function = this.functions ? this.scripts.function(script) : null;
		if (function != null) {
			return async.dispatch(CommandType.FCALL, new NestedMultiOutput<>(ByteArrayCodec.INSTANCE),
					new ScriptCallArgs(function, keys, argv));
		}
		return async.dispatch(CommandType.EVALSHA, new NestedMultiOutput<>(ByteArrayCodec.INSTANCE),
				new ScriptCallArgs(script.getSha1(), keys, argv));
	}

	/**
	 * Answers a call that {@link #send} sent and that failed with {@code failure}, when Redis lost
	 * what it ran: the library missing on the node is loaded there (on a cluster, the master of
	 * the slot of the call's first key) and the function called again, or the script run when the
	 * function is missing still (the call reached another node); Functions refused turns
	 * them off and runs the script; a function refused past {@code maxmemory} (before it ran) runs
	 * as the script this once; a script lost runs as a plain EVAL. Any other failure is thrown.
	 */
	List<Object> recover(RedisClusterAsyncCommands<byte[], byte[]> async, RedisScript<?> script,
			byte[][] keys, byte[][] argv,
			RuntimeException failure, long deadline, Duration timeout) {
		String function = this.scripts.function(script);
		if (function != null && this.functions && ScriptFailures.isFunctionMissing(failure)) {
			if (loadLibrary(ScriptFailures.nodeOf(async, keys[0]))) {
				try {
					return await(async.fcall(function, ScriptOutputType.MULTI, keys, argv), deadline, timeout);
				}
				catch (RuntimeException again) {
					if (ScriptFailures.isFunctionMissing(again)) {
						// the call went to another node than the one loaded (a cluster's slot moved
						// and this client's view not refreshed yet: redirections are followed, the
						// node they lead to may lack the library): the script does not need it
						ScriptFailures.refreshClusterView(this.connectionFactory);
					}
					else if (!functionsRefused(again) && !ScriptFailures.isOutOfMemory(again)) {
						throw again;
					}
				}
			}
			return runScript(async, script, keys, argv, deadline, timeout);
		}
		if (function != null && functionsRefused(failure)) {
			return runScript(async, script, keys, argv, deadline, timeout);
		}
		if (function != null && this.functions && ScriptFailures.isOutOfMemory(failure)) {
			// past maxmemory Redis refuses a function without flags before it runs, whatever it would
			// write, and a script only at its first write that adds data: the script decides
			return runScript(async, script, keys, argv, deadline, timeout);
		}
		if (QueueScriptExecutor.isNoScript(failure)) {
			return await(async.eval(encodeUtf8(script.getScriptAsString()), ScriptOutputType.MULTI, keys, argv),
					deadline, timeout);
		}
		throw failure;
	}

	/** Runs {@code script} by SHA, or as a plain EVAL if Redis lost it. */
	private List<Object> runScript(RedisClusterAsyncCommands<byte[], byte[]> async, RedisScript<?> script,
			byte[][] keys, byte[][] argv, long deadline, Duration timeout) {
		try {
			return await(async.evalsha(script.getSha1(), ScriptOutputType.MULTI, keys, argv), deadline, timeout);
		}
		catch (RuntimeException ex) {
			if (!QueueScriptExecutor.isNoScript(ex)) {
				throw ex;
			}
			return await(async.eval(encodeUtf8(script.getScriptAsString()), ScriptOutputType.MULTI, keys, argv),
					deadline, timeout);
		}
	}

	/**
	 * Loads the library on {@code node}; a library of that name already there counts as loaded.
	 * @return whether the node has it; {@code false} when Redis answered the load with an error:
	 * where Redis has no Functions, the user may not load them or Redis cannot load the library
	 * ({@code ERR ...}), the executor runs scripts from then on (logged once); a refusal of the
	 * moment ({@code OOM}, {@code BUSY}, {@code LOADING}, {@code READONLY}...) leaves Functions on.
	 * A failure to reach Redis is thrown.
	 */
	private boolean loadLibrary(RedisClusterAsyncCommands<byte[], byte[]> node) {
		Duration timeout = commandTimeout();
		try {
			await(node.functionLoad(this.scripts.library().text()), System.nanoTime() + timeout.toNanos(), timeout);
			return true;
		}
		catch (RuntimeException ex) {
			if (ScriptFailures.mentions(ex, "already exists")) {
				return true;
			}
			if (functionsRefused(ex)) {
				return false;
			}
			String error = ScriptFailures.redisError(ex);
			if (error == null) {
				throw ex;
			}
			if (!error.startsWith("ERR") && !error.startsWith("NOPERM")) {
				// a refusal of the moment (OOM past maxmemory, BUSY, LOADING, READONLY, ...): the
				// call runs as the script, and the next that misses the library loads it again
				return false;
			}
			if (this.functions) {
				this.functions = false;
				logger.warn("Redis did not load the queue scripts' Functions library ({}); running the scripts by SHA instead",
						ex.getMessage(), ex);
			}
			return false;
		}
	}

	/**
	 * Whether a failure says that Redis has no Functions or does not let this user load or call
	 * them; if so, turns them off for this executor (logged once).
	 */
	boolean functionsRefused(Throwable failure) {
		boolean refused = ScriptFailures.refusesFunctions(failure);
		if (refused && this.functions) {
			this.functions = false;
			logger.info("Redis refused the queue scripts' Functions library ({}); running the scripts by SHA instead",
					failure.getMessage());
		}
		return refused;
	}

	/** Whether the executor calls the library's functions (Redis has not refused them). */
	boolean usesFunctions() {
		return this.functions;
	}

	<T> T await(RedisFuture<T> future, long deadline, Duration timeout) {
		try {
			return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			throw translate(ex.getCause());
		}
		catch (TimeoutException ex) {
			future.cancel(true);
			throw new QueryTimeoutException(QueueScriptExecutor.timeoutMessage(timeout), ex);
		}
		catch (InterruptedException ex) {
			future.cancel(true);
			Thread.currentThread().interrupt();
			throw new RedisSystemException("Interrupted while waiting for Redis", ex);
		}
	}

	/**
	 * Waits until {@code future} is done, whatever its outcome, or the deadline passed; an interrupt
	 * ends the wait and stays set, for the next {@link #await} to report (Lettuce's own
	 * {@code await} throws on an interrupt, with the flag set again).
	 */
	void awaitDone(RedisFuture<?> future, long deadline) {
		try {
			future.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (RedisCommandInterruptedException ex) {
			// an interrupt as Lettuce reports it (the flag set again): the next await reports it as every other wait does
		}
	}

	DataAccessException translate(@Nullable Throwable failure) {
		if (failure instanceof DataAccessException translated) {
			return translated;
		}
		if (failure instanceof RuntimeException ex) {
			DataAccessException translated = this.connectionFactory.translateExceptionIfPossible(ex);
			if (translated != null) {
				return translated;
			}
		}
		return new RedisSystemException("Redis command failed", failure);
	}

	Duration commandTimeout() {
		return (this.connectionFactory instanceof LettuceConnectionFactory lettuce)
				? Duration.ofMillis(lettuce.getTimeout()) : Duration.ofMinutes(1);
	}

}
