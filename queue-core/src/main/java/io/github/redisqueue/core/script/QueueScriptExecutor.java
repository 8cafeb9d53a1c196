package io.github.redisqueue.core.script;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.core.QueueScripts;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.serializer.RedisSerializer;

import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;

/**
 * Runs the engine's scripts. With Lettuce, a queue's script runs as a function of the scripts'
 * Functions library ({@code FCALL}, see {@link QueueScripts#library()}), which is loaded
 * ({@code FUNCTION LOAD}) on the node that does not have it (a first call, a restart without
 * persistence, {@code FUNCTION FLUSH}); where Redis has no Functions (before 7.0) or the user may
 * not load or call them, or when {@link QueueScripts#functions()} says not to, the executor runs the
 * scripts instead, from then on. A script runs by SHA, and as a plain EVAL when Redis lost it
 * ({@code NOSCRIPT}: a restart, a failover, {@code SCRIPT FLUSH}), like Spring Data Redis's
 * {@code DefaultScriptExecutor}. With Lettuce, every call goes out on the shared connection
 * asynchronously. Whatever fails leaves as a {@link DataAccessException}, translated by the
 * connection factory; a deadline of its own that passes is a {@link QueryTimeoutException}.
 */
public final class QueueScriptExecutor {

	private static final Logger logger = LoggerFactory.getLogger(QueueScriptExecutor.class);

	private final RedisConnectionFactory connectionFactory;

	private final RedisTemplate<byte[], byte[]> redis;

	private final QueueScripts scripts;

	// run before the first script call (see QueueRegistration#open); null once it answered
	private volatile @Nullable Runnable firstUse;

	// false when the scripts say so, or once Redis refused Functions: scripts by SHA from then on
	private volatile boolean functions;

	public QueueScriptExecutor(RedisConnectionFactory connectionFactory, QueueScripts scripts) {
		this.connectionFactory = connectionFactory;
		this.scripts = scripts;
		this.functions = scripts.functions();
		RedisTemplate<byte[], byte[]> template = new RedisTemplate<>();
		template.setConnectionFactory(connectionFactory);
		template.setEnableDefaultSerializer(false);
		template.setKeySerializer(RedisSerializer.byteArray());
		template.setValueSerializer(RedisSerializer.byteArray());
		template.setHashKeySerializer(RedisSerializer.byteArray());
		template.setHashValueSerializer(RedisSerializer.byteArray());
		template.afterPropertiesSet();
		this.redis = template;
	}

	/** The template for the plain commands around the scripts. */
	public RedisTemplate<byte[], byte[]> redis() {
		return this.redis;
	}

	public QueueScripts scripts() {
		return this.scripts;
	}

	/**
	 * What to run before the first script call of a queue; it runs again before the next call
	 * until it returns without failing, then never.
	 */
	public void beforeFirstUse(Runnable check) {
		this.firstUse = check;
	}

	private void opened() {
		Runnable check = this.firstUse;
		if (check != null) {
			check.run();
			this.firstUse = null;
		}
	}

	/**
	 * Runs a script of one queue ({@code common-keys.lua}: its keys, then the channel of finished
	 * batches, the form of its job ids and {@code args}).
	 */
	public List<Object> run(RedisScript<?> script, QueueKeys k, List<byte[]> args) {
		opened();
		return runOpened(script, k, args);
	}

	/** {@link #run} without the first-use check: for the work that check does itself. */
	public List<Object> runOpened(RedisScript<?> script, QueueKeys k, List<byte[]> args) {
		List<Object> reply = eval(script, ReturnType.MULTI, k.scriptKeys(), queueArgs(k, args));
		return (reply != null) ? reply : List.of();
	}

	/**
	 * Runs scripts on queue partitions, script {@code i} on partition {@code ks[i]}, all calls at once: with Lettuce they go out together
	 * on the shared connection (on a cluster, each to the master of its partition's slot), so the
	 * calls cost one round trip; other drivers run them one after the other. A call Redis lost the
	 * script for is run again as a plain EVAL, that call alone. Each call answers or fails on its
	 * own: the outcome of call {@code i} is {@code replies[i]} or {@code failures[i]}.
	 * @return per call, its reply or the failure it met
	 */
	public Each runEach(List<RedisScript<?>> scripts, List<QueueKeys> ks, List<List<byte[]>> args) {
		int n = ks.size();
		Object[] replies = new Object[n];
		RuntimeException[] failures = new RuntimeException[n];
		try {
			opened();
		}
		catch (RuntimeException ex) {
			java.util.Arrays.fill(failures, ex);
			return new Each(replies, failures);
		}
		Boolean sent = withLettuce((async) -> {
			List<RedisFuture<List<Object>>> futures = new ArrayList<>(n);
			List<byte[][]> argvs = new ArrayList<>(n);
			for (int i = 0; i < n; i++) {
				byte[][] argv = queueArgs(ks.get(i), args.get(i)).toArray(byte[][]::new);
				argvs.add(argv);
				futures.add(send(async, scripts.get(i), ks.get(i).scriptKeys().toArray(byte[][]::new), argv));
			}
			Duration timeout = commandTimeout();
			long deadline = System.nanoTime() + timeout.toNanos();
			for (int i = 0; i < n; i++) {
				try {
					replies[i] = await(futures.get(i), deadline, timeout);
				}
				catch (RuntimeException ex) {
					try {
						replies[i] = recover(async, scripts.get(i), ks.get(i).scriptKeys().toArray(byte[][]::new),
								argvs.get(i), ex, deadline, timeout);
					}
					catch (RuntimeException again) {
						failures[i] = again;
					}
				}
			}
			return Boolean.TRUE;
		});
		if (sent == null) {
			for (int i = 0; i < n; i++) {
				try {
					replies[i] = run(scripts.get(i), ks.get(i), args.get(i));
				}
				catch (RuntimeException ex) {
					failures[i] = ex;
				}
			}
		}
		for (int i = 0; i < n; i++) {
			if (failures[i] == null && replies[i] == null) {
				replies[i] = List.of();
			}
		}
		return new Each(replies, failures);
	}

	/**
	 * The outcomes of {@link #runEach}: per call its reply (a list) or its failure.
	 * @param replies the replies, {@code null} where the call failed
	 * @param failures the failures, {@code null} where the call answered
	 */
	public record Each(@Nullable Object[] replies, @Nullable RuntimeException[] failures) {

		@SuppressWarnings("unchecked")
		public List<Object> reply(int i) {
			return (List<Object>) this.replies[i];
		}

	}

	/**
	 * Runs a script of one queue and waits at most {@code timeout} for the answer. With Lettuce,
	 * past the timeout the command is cancelled (Lettuce does not send a cancelled command that
	 * still waits for a connection) and the call fails; other drivers fall back to {@link #run}.
	 */
	public List<Object> runWithin(RedisScript<?> script, QueueKeys k, List<byte[]> extraKeys, List<byte[]> args,
			Duration timeout) {
		opened();
		List<byte[]> allKeys = keys(k, extraKeys);
		byte[][] keys = allKeys.toArray(byte[][]::new);
		byte[][] argv = queueArgs(k, args).toArray(byte[][]::new);
		List<Object> reply = runLettuce(script, keys, argv, timeout);
		if (reply != null) {
			return reply;
		}
		List<Object> answer = eval(script, ReturnType.MULTI, allKeys, queueArgs(k, args));
		return (answer != null) ? answer : List.of();
	}

	/**
	 * One call on the shared Lettuce connection (see {@link #send} and {@link #recover}), awaited
	 * at most {@code timeout}; {@code null} with another driver.
	 */
	private @Nullable List<Object> runLettuce(RedisScript<?> script, byte[][] keys, byte[][] argv, Duration timeout) {
		return withLettuce((async) -> {
			long deadline = System.nanoTime() + timeout.toNanos();
			try {
				return await(send(async, script, keys, argv), deadline, timeout);
			}
			catch (DataAccessException ex) {
				return recover(async, script, keys, argv, ex, deadline, timeout);
			}
		});
	}

	/**
	 * Runs a script of one queue like {@link #runWithin}, then {@code WAIT replicas waitTimeout}
	 * on the same connection (with a Redis Cluster: the connection to the master of the queue's
	 * slot), so that the count covers the script's writes. Needs Lettuce.
	 * @return the script's reply, and the number of replicas that acknowledged its writes
	 */
	public Replicated runReplicated(RedisScript<?> script, QueueKeys k, List<byte[]> extraKeys, List<byte[]> args,
			Duration timeout, int replicas, Duration waitTimeout) {
		byte[][] keys = keys(k, extraKeys).toArray(byte[][]::new);
		byte[][] argv = queueArgs(k, args).toArray(byte[][]::new);
		Duration total = timeout.plus(waitTimeout);
		Replicated replicated = withLettuce((async) -> {
			long deadline = System.nanoTime() + total.toNanos();
			RedisClusterAsyncCommands<byte[], byte[]> node = ScriptFailures.nodeOf(async, keys[0]);
			RedisFuture<List<Object>> eval = send(node, script, keys, argv);
			RedisFuture<Long> wait = node.waitForReplication(replicas, waitTimeout.toMillis());
			List<Object> reply;
			try {
				reply = await(eval, deadline, total);
			}
			catch (DataAccessException ex) {
				reply = recover(node, script, keys, argv, ex, deadline, total);
				wait = node.waitForReplication(replicas, waitTimeout.toMillis());
			}
			Long acknowledged = await(wait, deadline, total);
			return new Replicated(reply, (acknowledged != null) ? acknowledged : 0);
		});
		if (replicated == null) {
			throw new QueueException("A durable enqueue (waiting for replicas) needs the Lettuce driver");
		}
		return replicated;
	}

	/**
	 * A script's reply and the replicas that acknowledged its writes.
	 * @param reply the reply
	 * @param replicas replicas that acknowledged
	 */
	public record Replicated(List<Object> reply, long replicas) {

	}

	/** The queue's keys, then {@code extraKeys}. */
	public static List<byte[]> keys(QueueKeys k, List<byte[]> extraKeys) {
		if (extraKeys.isEmpty()) {
			return k.scriptKeys();
		}
		List<byte[]> all = new ArrayList<>(k.scriptKeys());
		all.addAll(extraKeys);
		return all;
	}

	/** Runs a script on keys outside every queue (the worker registry) that answers a list. */
	public List<Object> runForList(RedisScript<?> script, List<byte[]> keys, List<byte[]> args) {
		List<Object> reply = eval(script, ReturnType.MULTI, keys, args);
		return (reply != null) ? reply : List.of();
	}

	/** Runs a script on keys outside every queue (the worker registry) that answers a number. */
	public @Nullable Long runForNumber(RedisScript<?> script, List<byte[]> keys, List<byte[]> args) {
		return eval(script, ReturnType.INTEGER, keys, args);
	}

	/**
	 * Sends the commands in one round trip and returns their replies in order. With Lettuce they
	 * go out on the shared connection at once (a pipeline would open a dedicated connection for
	 * each call), each answer awaited up to the client's command timeout, and a script call that
	 * fails recovers on its own as a single call does ({@link #recover}); with other drivers, a
	 * script Redis lost is loaded and the whole batch sent once more.
	 */
	public List<Object> pipelined(List<Command> commands) {
		opened();
		try {
			return pipelinedOnce(commands);
		}
		catch (RuntimeException ex) {
			if (!isNoScript(ex) && !ScriptFailures.isFunctionMissing(ex) && !functionsRefused(ex)) {
				throw ex;
			}
			preload();
			return pipelinedOnce(commands);
		}
	}

	/**
	 * Loads every script into the Redis script cache, and the scripts' Functions library (on every
	 * master of a cluster) unless the executor runs scripts only.
	 */
	public void preload() {
		this.redis.execute((RedisCallback<Void>) (connection) -> {
			for (RedisScript<?> script : this.scripts.all()) {
				connection.scriptingCommands().scriptLoad(encodeUtf8(script.getScriptAsString()));
			}
			return null;
		});
		if (this.functions) {
			// a node that refuses the library turns Functions off (see loadLibrary)
			withLettuce((async) -> {
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
			});
		}
	}

	/**
	 * Sends one call of {@code script}: its function with {@code FCALL} while the executor uses
	 * Functions and the library holds it, else the script by SHA.
	 */
	private RedisFuture<List<Object>> send(RedisClusterAsyncCommands<byte[], byte[]> async, RedisScript<?> script,
			byte[][] keys, byte[][] argv) {
		String function = this.functions ? this.scripts.function(script) : null;
		if (function != null) {
			return async.fcall(function, ScriptOutputType.MULTI, keys, argv);
		}
		return async.evalsha(script.getSha1(), ScriptOutputType.MULTI, keys, argv);
	}

	/**
	 * Answers a call that {@link #send} sent and that failed with {@code failure}, when Redis lost
	 * what it ran: the library missing on the node is loaded there (on a cluster, the master of
	 * the slot of the call's first key) and the function called again, or the script run when the
	 * function is missing still (the call reached another node); Functions refused turns
	 * them off and runs the script; a function refused past {@code maxmemory} (before it ran) runs
	 * as the script this once; a script lost runs as a plain EVAL. Any other failure is thrown.
	 */
	private List<Object> recover(RedisClusterAsyncCommands<byte[], byte[]> async, RedisScript<?> script,
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
		if (isNoScript(failure)) {
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
			if (!isNoScript(ex)) {
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
			if (mentions(ex, "already exists")) {
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
	private boolean functionsRefused(Throwable failure) {
		boolean refused = ScriptFailures.refusesFunctions(failure);
		if (refused && this.functions) {
			this.functions = false;
			logger.info("Redis refused the queue scripts' Functions library ({}); running the scripts by SHA instead",
					failure.getMessage());
		}
		return refused;
	}

	/** Whether the executor calls the library's functions (Redis has not refused them). */
	public boolean usesFunctions() {
		return this.functions;
	}

	/** Whether a failure, or one of its causes or pipelined replies, says {@code text}. */
	public static boolean mentions(Throwable failure, String text) {
		return ScriptFailures.mentions(failure, text);
	}

	/** Whether a failure says that Redis lost the script ({@code NOSCRIPT}). */
	public static boolean isNoScript(Throwable failure) {
		return mentions(failure, "NOSCRIPT");
	}

	@SuppressWarnings("unchecked")
	private <T> @Nullable T eval(RedisScript<?> script, ReturnType type, List<byte[]> keys, List<byte[]> args) {
		if (type == ReturnType.MULTI && this.functions && this.scripts.function(script) != null) {
			List<Object> reply = runLettuce(script, keys.toArray(byte[][]::new), args.toArray(byte[][]::new),
					commandTimeout());
			if (reply != null) {
				return (T) reply;
			}
		}
		byte[][] keysAndArgs = concat(keys, args);
		return this.redis.execute((RedisCallback<T>) (connection) -> {
			RedisScriptingCommands scripting = connection.scriptingCommands();
			try {
				return scripting.evalSha(script.getSha1(), type, keys.size(), keysAndArgs);
			}
			catch (RuntimeException ex) {
				if (!isNoScript(ex)) {
					throw ex;
				}
				return scripting.eval(encodeUtf8(script.getScriptAsString()), type, keys.size(), keysAndArgs);
			}
		});
	}

	private List<Object> pipelinedOnce(List<Command> commands) {
		List<Object> replies = withLettuce((async) -> {
			List<RedisFuture<?>> futures = new ArrayList<>(commands.size());
			for (Command command : commands) {
				if (command instanceof SetMembers members) {
					futures.add(async.smembers(members.key()));
				}
				else if (command instanceof ScriptCall call) {
					futures.add(send(async, call.script(), call.keys().toArray(byte[][]::new),
							call.args().toArray(byte[][]::new)));
				}
			}
			Duration timeout = commandTimeout();
			long deadline = System.nanoTime() + timeout.toNanos();
			List<Object> answers = new ArrayList<>(futures.size());
			for (int i = 0; i < futures.size(); i++) {
				try {
					answers.add(await(futures.get(i), deadline, timeout));
				}
				catch (DataAccessException ex) {
					if (!(commands.get(i) instanceof ScriptCall call)) {
						throw ex;
					}
					// each call recovers on its own, as a single call does
					answers.add(recover(async, call.script(), call.keys().toArray(byte[][]::new),
							call.args().toArray(byte[][]::new), ex, deadline, timeout));
				}
			}
			return answers;
		});
		if (replies != null) {
			return replies;
		}
		return this.redis.executePipelined((RedisCallback<Object>) (connection) -> {
			for (Command command : commands) {
				if (command instanceof SetMembers members) {
					connection.setCommands().sMembers(members.key());
				}
				else if (command instanceof ScriptCall call) {
					connection.scriptingCommands()
						.evalSha(encodeUtf8(call.script().getSha1()), ReturnType.MULTI, call.keys().size(),
								concat(call.keys(), call.args()));
				}
			}
			return null;
		}, null);
	}

	/**
	 * Runs {@code work} on the native commands of a Lettuce connection, translating what it
	 * throws; {@code null} with another driver.
	 */
	@SuppressWarnings("unchecked")
	private <T> @Nullable T withLettuce(Function<RedisClusterAsyncCommands<byte[], byte[]>, T> work) {
		return this.redis.execute((RedisCallback<T>) (connection) -> {
			if (!(connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> commands)) {
				return null;
			}
			try {
				// the template's connections are byte[]-typed, and so are their native commands
				return work.apply((RedisClusterAsyncCommands<byte[], byte[]>) commands);
			}
			catch (RuntimeException ex) {
				throw translate(ex);
			}
		});
	}

	private <T> T await(RedisFuture<T> future, long deadline, Duration timeout) {
		try {
			return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			throw translate(ex.getCause());
		}
		catch (TimeoutException ex) {
			future.cancel(true);
			throw new QueryTimeoutException(timeoutMessage(timeout), ex);
		}
		catch (InterruptedException ex) {
			future.cancel(true);
			Thread.currentThread().interrupt();
			throw new RedisSystemException("Interrupted while waiting for Redis", ex);
		}
	}

	/** What a call that Redis did not answer within {@code timeout} fails with. */
	public static String timeoutMessage(Duration timeout) {
		return "Redis did not answer within " + timeout + "; a call that was already sent may still take effect";
	}

	private DataAccessException translate(@Nullable Throwable failure) {
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

	private Duration commandTimeout() {
		return (this.connectionFactory instanceof LettuceConnectionFactory lettuce)
				? Duration.ofMillis(lettuce.getTimeout()) : Duration.ofMinutes(1);
	}

	/** The arguments of a script of one queue: its channel of finished batches, the form of its job ids, then {@code args}. */
	public static List<byte[]> queueArgs(QueueKeys k, List<byte[]> args) {
		List<byte[]> argv = new ArrayList<>(args.size() + 2);
		argv.add(k.channel());
		argv.add(k.idForm());
		argv.addAll(args);
		return argv;
	}

	private static byte[][] concat(List<byte[]> keys, List<byte[]> args) {
		List<byte[]> all = new ArrayList<>(keys.size() + args.size());
		all.addAll(keys);
		all.addAll(args);
		return all.toArray(byte[][]::new);
	}

	/** A command of a {@link #pipelined} batch. */
	public sealed interface Command permits SetMembers, ScriptCall {

	}

	/** {@code SMEMBERS key}. */
	public record SetMembers(byte[] key) implements Command {

	}

	/** A script by SHA; the script of one queue is {@link #of} its keys. */
	public record ScriptCall(RedisScript<?> script, List<byte[]> keys, List<byte[]> args) implements Command {

		public static ScriptCall of(RedisScript<?> script, QueueKeys k, List<byte[]> args) {
			return new ScriptCall(script, k.scriptKeys(), queueArgs(k, args));
		}

	}

}
