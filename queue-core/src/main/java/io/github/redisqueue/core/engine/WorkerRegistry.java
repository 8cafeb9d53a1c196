package io.github.redisqueue.core.engine;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import io.github.redisqueue.core.WorkerIds;
import io.github.redisqueue.core.WorkerInfo;
import io.github.redisqueue.core.script.InspectReplies;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueScriptExecutor;

import static io.github.redisqueue.core.script.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.script.ScriptArgs.encodeNumber;
import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;

/**
 * The registry of workers: their heartbeats, clean leaves and the lists of live and silent
 * workers, kept under keys of one hash tag outside every queue ({@link QueueKeys#workersKey}).
 * Each queue also keeps its own record of its live consumers, which its reaper pass reads.
 */
public final class WorkerRegistry {

	/** The most workers one registry script call lists, reads or moves to the silent set. */
	public static final int PAGE = 100;

	private final QueueScriptExecutor executor;

	private final Function<String, QueueKeys[]> keys;

	private final byte[] workersKey;

	private final byte[] silentKey;

	private final byte[] infoKey;

	public WorkerRegistry(QueueScriptExecutor executor, String prefix, Function<String, QueueKeys[]> keys) {
		this.executor = executor;
		this.keys = keys;
		this.workersKey = encodeUtf8(QueueKeys.workersKey(prefix));
		this.infoKey = encodeUtf8(QueueKeys.workerInfoKey(prefix));
		this.silentKey = encodeUtf8(QueueKeys.silentWorkersKey(prefix));
	}

	public void heartbeat(WorkerInfo worker, Duration timeToLive) {
		WorkerIds.validate(worker.id());
		List<byte[]> args = List.of(encodeUtf8(worker.id()), encodeNumber(timeToLive.toMillis()), encodeAscii("host"),
				encodeUtf8(worker.host()), encodeAscii("queues"), encodeUtf8(String.join(",", worker.queues())),
				encodeAscii("runningJobs"), encodeNumber(worker.runningJobs()), encodeAscii("startedAt"),
				encodeNumber((worker.startedAt() != null) ? worker.startedAt().toEpochMilli() : 0));
		Long now = this.executor.runForNumber(this.executor.scripts().heartbeat(), heartbeatKeys(worker), args);
		double deadline = ((now != null) ? now : System.currentTimeMillis()) + timeToLive.toMillis();
		byte[] id = encodeUtf8(worker.id());
		for (String queue : worker.queues()) {
			for (QueueKeys k : this.keys.apply(queue)) {
				this.executor.redis().opsForZSet().add(k.live(), id, deadline);
			}
		}
	}

	public void leave(WorkerInfo worker) {
		WorkerIds.validate(worker.id());
		byte[] id = encodeUtf8(worker.id());
		for (String queue : worker.queues()) {
			for (QueueKeys k : this.keys.apply(queue)) {
				this.executor.redis().opsForZSet().remove(k.live(), (Object) id);
			}
		}
		// a time to live of 0 deletes the worker's entry
		this.executor.runForNumber(this.executor.scripts().heartbeat(), heartbeatKeys(worker),
				List.of(id, encodeNumber(0)));
	}

	/**
	 * The silent workers, read in pages of {@value #PAGE} ids (each call also moves at most that
	 * many lapsed workers to the silent set), so that no script call walks every worker.
	 */
	public List<String> silentWorkers() {
		Set<String> ids = new LinkedHashSet<>();
		for (int offset = 0;;) {
			List<?> reply = this.executor.runForList(this.executor.scripts().silent(),
					List.of(this.workersKey, this.silentKey), List.of(encodeNumber(offset), encodeNumber(PAGE)));
			InspectReplies.SilentPage page = InspectReplies.silentPage(reply);
			ids.addAll(page.ids());
			offset += page.ids().size();
			if (page.ids().size() < PAGE && page.moved() < PAGE) {
				return List.copyOf(ids);
			}
		}
	}

	/** The live workers, read in pages of {@value #PAGE}. */
	public List<WorkerInfo> workers() {
		return workers(InspectReplies.workerPage(this.executor.runForList(this.executor.scripts().workers(),
				List.of(this.workersKey, this.infoKey), pageArgs(0))));
	}

	/**
	 * The live workers, starting from the first page read elsewhere (in a pipeline, from
	 * {@link #workersCall()}): the pages after it when it was full.
	 */
	public List<WorkerInfo> workers(InspectReplies.WorkerPage first) {
		Map<String, WorkerInfo> workers = new LinkedHashMap<>();
		InspectReplies.WorkerPage page = first;
		for (int offset = 0;;) {
			page.workers().forEach((worker) -> workers.putIfAbsent(worker.id(), worker));
			offset += page.read();
			if (page.read() < PAGE) {
				return List.copyOf(workers.values());
			}
			page = InspectReplies.workerPage(this.executor.runForList(this.executor.scripts().workers(),
					List.of(this.workersKey, this.infoKey), pageArgs(offset)));
		}
	}

	/** The {@code workers.lua} call of the first page, for a pipeline of its own. */
	public QueueScriptExecutor.ScriptCall workersCall() {
		return new QueueScriptExecutor.ScriptCall(this.executor.scripts().workers(),
				List.of(this.workersKey, this.infoKey), pageArgs(0));
	}

	private static List<byte[]> pageArgs(int offset) {
		return List.of(encodeNumber(offset), encodeNumber(PAGE));
	}

	private List<byte[]> heartbeatKeys(WorkerInfo worker) {
		return List.of(this.workersKey, this.infoKey, this.silentKey);
	}

}
