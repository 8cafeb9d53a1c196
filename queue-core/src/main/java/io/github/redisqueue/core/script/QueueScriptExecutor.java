package io.github.redisqueue.core.script;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.core.QueueScripts;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.ReturnType;
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

	private final RedisConnectionFactory connectionFactory;

	private final RedisTemplate<byte[], byte[]> redis;

	private final QueueScripts scripts;

	// run before the first script call (see QueueRegistration#open); null once it answered
	private volatile @Nullable Runnable firstUse;

	private final LettuceScriptCalls calls;

	private final CallBehindWait behindWait;

	public QueueScriptExecutor(RedisConnectionFactory connectionFactory, QueueScripts scripts) {
		this.connectionFactory = connectionFactory;
		this.scripts = scripts;
		this.calls = new LettuceScriptCalls(connectionFactory, scripts);
		this.behindWait = new CallBehindWait(this.calls);
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
				futures.add(this.calls.send(async, scripts.get(i), ks.get(i).scriptKeys().toArray(byte[][]::new), argv));
			}
			Duration timeout = this.calls.commandTimeout();
			long deadline = System.nanoTime() + timeout.toNanos();
			for (int i = 0; i < n; i++) {
				try {
					replies[i] = this.calls.await(futures.get(i), deadline, timeout);
				}
				catch (RuntimeException ex) {
					try {
						replies[i] = this.calls.recover(async, scripts.get(i), ks.get(i).scriptKeys().toArray(byte[][]::new),
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
				return this.calls.await(this.calls.send(async, script, keys, argv), deadline, timeout);
			}
			catch (DataAccessException ex) {
				return this.calls.recover(async, script, keys, argv, ex, deadline, timeout);
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
			RedisFuture<List<Object>> eval = this.calls.send(node, script, keys, argv);
			RedisFuture<Long> wait = node.waitForReplication(replicas, waitTimeout.toMillis());
			List<Object> reply;
			try {
				reply = this.calls.await(eval, deadline, total);
			}
			catch (DataAccessException ex) {
				reply = this.calls.recover(node, script, keys, argv, ex, deadline, total);
				wait = node.waitForReplication(replicas, waitTimeout.toMillis());
			}
			Long acknowledged = this.calls.await(wait, deadline, total);
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
			if (!isNoScript(ex) && !ScriptFailures.isFunctionMissing(ex) && !this.calls.functionsRefused(ex)) {
				throw ex;
			}
			preload();
			return pipelinedOnce(commands);
		}
	}

	/**
	 * Waits on a queue's wake-ups ({@code BLMOVE} from {@code wake} to {@code woken}, blocking up to
	 * {@code timeout}) and sends a script call of the queue right behind it on the same connection
	 * ({@code connection}, one of its own, not shared): Redis runs the call as soon as the wait
	 * ends, so that a wake-up and what follows it take one round trip. A call that fails recovers
	 * as a single call does ({@link #recover}), once the wait is over. A call {@code ahead}, when
	 * given, goes in front of the wait, in the same write: its reply (or its failure, which is not
	 * retried here) is handed to it as soon as it arrives, before the wait is over. {@code onReply},
	 * when given, takes the call's reply where it arrives: on the client's I/O thread, as the
	 * waiting thread wakes (it is registered before the commands are written). It must not block and
	 * must not throw; a reply that failed and was recovered is not given to it. Once this method
	 * returns or throws, {@code onReply} has run or never will.
	 * @param onReply what to do with the reply at once, or {@code null}
	 * @return whether the wait took a wake-up, and the call's reply
	 */
	public AfterWait runAfterWait(RedisClusterAsyncCommands<byte[], byte[]> connection, byte[] wake, byte[] woken,
			Duration timeout, @Nullable AheadOfWait ahead, RedisScript<?> script, QueueKeys k, List<byte[]> args,
			@Nullable Consumer<List<Object>> onReply) {
		opened();
		return this.behindWait.run(connection, wake, woken, timeout, ahead, script, k, args, onReply);
	}

	/**
	 * A script call of the queue sent in front of a wait (see {@link #runAfterWait}).
	 * @param script the script
	 * @param args its arguments after the queue's own
	 * @param answered takes its reply, or the failure that ended it, once
	 */
	public record AheadOfWait(RedisScript<?> script, List<byte[]> args,
			BiConsumer<@Nullable List<Object>, @Nullable RuntimeException> answered) {
	}

	/**
	 * What {@link #runAfterWait} found.
	 * @param woken whether the wait took a wake-up before its timeout
	 * @param reply the reply of the call sent behind it
	 */
	public record AfterWait(boolean woken, List<Object> reply) {
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
		if (this.calls.usesFunctions()) {
			withLettuce(this.calls::loadLibraryEverywhere);
		}
	}

	/** Whether the executor calls the library's functions (Redis has not refused them). */
	public boolean usesFunctions() {
		return this.calls.usesFunctions();
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
		if (type == ReturnType.MULTI && this.calls.usesFunctions() && this.scripts.function(script) != null) {
			List<Object> reply = runLettuce(script, keys.toArray(byte[][]::new), args.toArray(byte[][]::new),
					this.calls.commandTimeout());
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
					futures.add(this.calls.send(async, call.script(), call.keys().toArray(byte[][]::new),
							call.args().toArray(byte[][]::new)));
				}
			}
			Duration timeout = this.calls.commandTimeout();
			long deadline = System.nanoTime() + timeout.toNanos();
			List<Object> answers = new ArrayList<>(futures.size());
			for (int i = 0; i < futures.size(); i++) {
				try {
					answers.add(this.calls.await(futures.get(i), deadline, timeout));
				}
				catch (DataAccessException ex) {
					if (!(commands.get(i) instanceof ScriptCall call)) {
						throw ex;
					}
					// each call recovers on its own, as a single call does
					answers.add(this.calls.recover(async, call.script(), call.keys().toArray(byte[][]::new),
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
	 * throws; {@code null} with another driver. The connection is handed over as it is, not
	 * behind the template's close-suppressing proxy (a proxy class lookup and instance per call,
	 * a measurable share of a small call's client time): nothing here closes it.
	 */
	@SuppressWarnings("unchecked")
	<T> @Nullable T withLettuce(Function<RedisClusterAsyncCommands<byte[], byte[]>, T> work) {
		return this.redis.execute((RedisCallback<T>) (connection) -> {
			if (!(connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> commands)) {
				return null;
			}
			try {
				// the template's connections are byte[]-typed, and so are their native commands
				return work.apply((RedisClusterAsyncCommands<byte[], byte[]>) commands);
			}
			catch (RuntimeException ex) {
				throw this.calls.translate(ex);
			}
		}, true);
	}

	/** The script calls on Lettuce's native commands (awaits, failure translation). */
	LettuceScriptCalls calls() {
		return this.calls;
	}

	/** What a call that Redis did not answer within {@code timeout} fails with. */
	public static String timeoutMessage(Duration timeout) {
		return "Redis did not answer within " + timeout + "; a call that was already sent may still take effect";
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
