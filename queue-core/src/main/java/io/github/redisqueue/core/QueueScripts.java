package io.github.redisqueue.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redisqueue.core.script.ScriptLibrary;
import io.github.redisqueue.core.script.ScriptPrelude;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts of the engine, read once from {@code io/github/redisqueue/scripts/}. The
 * template runs them by SHA, and as a plain EVAL after {@code NOSCRIPT}, which reloads a script
 * after a restart, a failover or {@code SCRIPT FLUSH}. Each script is the shared prelude
 * {@code clock.lua}, the part of the modules {@code common-*.lua} it uses (see {@link #COMMON} and
 * {@link ScriptPrelude}; or {@code registry.lua} for the worker registry) and its own file. Every script touches only the keys it is given in {@code KEYS} (see
 * {@link #CHECK_KEYS_PROPERTY}). The scripts of a queue are also one Redis Functions library
 * ({@link #library()}, built from the same files by {@link ScriptLibrary}), whose prelude runs once
 * when it loads instead of on every call; the executor calls its functions on Redis 7 and later.
 *
 * @since 0.1.0
 */
@SuppressWarnings("rawtypes")
public final class QueueScripts {

	/**
	 * System property that, set to {@code true} before the scripts are loaded, makes every script
	 * fail a call that touches a key it was not given in {@code KEYS}: a check of Redis's rule for
	 * scripts (proxies and some Redis-compatible servers enforce it), used by the test suite.
	 */
	public static final String CHECK_KEYS_PROPERTY = "redisqueue.scripts.check-keys";

	/**
	 * System property that, set to {@code false}, makes {@link #QueueScripts()} run the scripts by
	 * SHA instead of calling the functions of the {@link #library() library} (the same text either
	 * way).
	 */
	public static final String FUNCTIONS_PROPERTY = "redisqueue.scripts.functions";

	/** Where the scripts are on the class path (see {@link QueueRuntimeHints}). */
	static final String LOCATION = "io/github/redisqueue/scripts/";

	/**
	 * The modules of the queue scripts' shared prelude, in the order they are concatenated: each
	 * uses only what it or the modules before it define (see {@code common-keys.lua}).
	 */
	static final List<String> COMMON = List.of("common-keys", "common-history", "common-records", "common-sequence",
			"common-plain", "common-jobs", "common-wake", "common-unique", "common-gates", "common-leases",
			"common-transitions");

	private static final List<String> COMMON_TEXT = COMMON.stream().map(QueueScripts::read).toList();

	private final boolean functions;

	/** The scripts of a queue that the library holds, by the name of their file. */
	private final Map<String, RedisScript<List>> queueScripts = new LinkedHashMap<>();

	private final RedisScript<List> enqueue = load("enqueue");

	private final RedisScript<List> reserve = load("reserve");

	private final RedisScript<List> complete = load("complete");

	private final RedisScript<List> fail = load("fail");

	private final RedisScript<List> extend = load("extend");

	private final RedisScript<List> release = load("release");

	private final RedisScript<List> progress = load("progress");

	private final RedisScript<List> reap = load("reap");

	private final RedisScript<List> dead = load("dead");

	private final RedisScript<List> inspect = load("inspect");

	private final RedisScript<List> batch = load("batch");

	private final RedisScript<List> jobs = load("jobs");

	private final RedisScript<List> schedule = load("schedule");

	private final RedisScript<List> migrate = load("migrate");

	private final ScriptLibrary library = buildLibrary();

	private final Map<RedisScript<?>, String> functionNames = functionNames();

	private final RedisScript<Long> heartbeat = new DefaultRedisScript<>(prelude("registry") + read("heartbeat"), Long.class);

	private final RedisScript<List> workers = new DefaultRedisScript<>(prelude("registry") + read("workers"), List.class);

	private final RedisScript<List> silent = new DefaultRedisScript<>(prelude("registry") + read("silent"), List.class);

	/**
	 * The scripts, run as the functions of the {@link #library() library} where Redis allows it
	 * unless the system property {@link #FUNCTIONS_PROPERTY} is {@code false}.
	 */
	public QueueScripts() {
		this(!"false".equals(System.getProperty(FUNCTIONS_PROPERTY)));
	}

	/**
	 * The scripts.
	 * @param functions whether to call the functions of the {@link #library() library} where Redis
	 * allows it (Redis 7 and later, a user allowed {@code FUNCTION LOAD} and {@code FCALL}), or to
	 * run the scripts by SHA always
	 */
	public QueueScripts(boolean functions) {
		this.functions = functions;
	}

	/** Whether calls go to the functions of the {@link #library() library} where Redis allows it. */
	public boolean functions() {
		return this.functions;
	}

	/** {@code migrate.lua}: moves a slice of a partition's records from layout 4 to layout 5. */
	public RedisScript<List> migrate() {
		return this.migrate;
	}

	public RedisScript<List> enqueue() {
		return this.enqueue;
	}

	public RedisScript<List> reserve() {
		return this.reserve;
	}

	public RedisScript<List> complete() {
		return this.complete;
	}

	public RedisScript<List> fail() {
		return this.fail;
	}

	public RedisScript<List> extend() {
		return this.extend;
	}

	public RedisScript<List> release() {
		return this.release;
	}

	/** Records the progress of a job under its lease. */
	public RedisScript<List> progress() {
		return this.progress;
	}

	public RedisScript<List> reap() {
		return this.reap;
	}

	public RedisScript<List> dead() {
		return this.dead;
	}

	public RedisScript<List> inspect() {
		return this.inspect;
	}

	/** Opens, feeds, seals, cancels and reads batches, and hands off their completion. */
	public RedisScript<List> batch() {
		return this.batch;
	}

	/** Lists the jobs of one state page by page, deletes one job, runs a delayed job now. */
	public RedisScript<List> jobs() {
		return this.jobs;
	}

	/** Reads a recurring job's last tick, and fires its ticks at most once each. */
	public RedisScript<List> schedule() {
		return this.schedule;
	}

	/** Records a worker's heartbeat (keys outside any queue's hash tag). */
	public RedisScript<Long> heartbeat() {
		return this.heartbeat;
	}

	/** Lists live workers. */
	public RedisScript<List> workers() {
		return this.workers;
	}

	/** Lists (or forgets) the workers whose heartbeat ran out without a clean leave. */
	public RedisScript<List> silent() {
		return this.silent;
	}

	/** Every script, for preloading. */
	public List<RedisScript<?>> all() {
		return List.of(this.enqueue, this.reserve, this.complete, this.fail, this.extend, this.release, this.reap,
				this.progress, this.dead, this.inspect, this.batch, this.jobs, this.schedule, this.heartbeat, this.workers,
				this.silent);
	}

	/** The queue scripts as one Functions library. */
	public ScriptLibrary library() {
		return this.library;
	}

	/**
	 * The function of the {@link #library() library} that runs {@code script}, {@code null} for a
	 * script the library does not hold (the worker registry's).
	 */
	public @Nullable String function(RedisScript<?> script) {
		return this.functionNames.get(script);
	}

	// the library's text depends only on the files and the key check: built once per setting
	private static final Map<Boolean, ScriptLibrary> LIBRARIES = new ConcurrentHashMap<>();

	private ScriptLibrary buildLibrary() {
		return LIBRARIES.computeIfAbsent(Boolean.getBoolean(CHECK_KEYS_PROPERTY), this::newLibrary);
	}

	private ScriptLibrary newLibrary(boolean checkKeys) {
		Map<String, String> bodies = new LinkedHashMap<>();
		this.queueScripts.keySet().forEach((name) -> bodies.put(name, read(name)));
		List<String> modules = new ArrayList<>();
		if (checkKeys) {
			modules.add(read("keycheck"));
		}
		modules.addAll(COMMON_TEXT);
		return ScriptLibrary.build("redisqueue", read("clock"), modules, bodies);
	}

	private Map<RedisScript<?>, String> functionNames() {
		Map<RedisScript<?>, String> functions = new IdentityHashMap<>();
		this.queueScripts.forEach((name, script) -> functions.put(script, this.library.function(name)));
		return functions;
	}

	/** The prelude of a queue's scripts followed by {@code body}: a script of one queue's keys. */
	static String withPrelude(String body) {
		return check() + read("clock") + "\n" + ScriptPrelude.neededBy(COMMON_TEXT, body) + "\n" + body;
	}

	private RedisScript<List> load(String name) {
		RedisScript<List> script = new DefaultRedisScript<>(withPrelude(read(name)), List.class);
		this.queueScripts.put(name, script);
		return script;
	}

	/**
	 * The clock helper, then the named prelude, each followed by a line break; with the key check
	 * on, {@code keycheck.lua} before them.
	 */
	private static String prelude(String name) {
		return check() + read("clock") + "\n" + read(name) + "\n";
	}

	private static String check() {
		return Boolean.getBoolean(CHECK_KEYS_PROPERTY) ? read("keycheck") + "\n" : "";
	}

	private static String read(String name) {
		ClassPathResource resource = new ClassPathResource(LOCATION + name + ".lua", QueueScripts.class.getClassLoader());
		try (InputStream in = resource.getInputStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot read script " + resource, ex);
		}
	}

}
