package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import static io.github.redisqueue.core.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.ScriptArgs.encodeNumber;
import static io.github.redisqueue.core.ScriptArgs.encodeUtf8;

/**
 * The registry of workers: their heartbeats, clean leaves and the lists of live and silent
 * workers, kept under keys of one hash tag outside every queue ({@link QueueKeys#workersKey}).
 * Each queue also keeps its own record of its live consumers, which its reaper pass reads.
 */
final class WorkerRegistry {

	private final QueueScriptExecutor executor;

	private final Function<String, QueueKeys[]> keys;

	private final byte[] workersKey;

	private final byte[] silentKey;

	private final byte[] infoKey;

	WorkerRegistry(QueueScriptExecutor executor, String prefix, Function<String, QueueKeys[]> keys) {
		this.executor = executor;
		this.keys = keys;
		this.workersKey = encodeUtf8(QueueKeys.workersKey(prefix));
		this.infoKey = encodeUtf8(QueueKeys.workerInfoKey(prefix));
		this.silentKey = encodeUtf8(QueueKeys.silentWorkersKey(prefix));
	}

	void heartbeat(WorkerInfo worker, Duration timeToLive) {
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

	void leave(WorkerInfo worker) {
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

	List<String> silentWorkers() {
		return ScriptReplies.silentWorkerIds(this.executor.runForList(this.executor.scripts().silent(),
				List.of(this.workersKey, this.silentKey), List.of(encodeAscii("list"))));
	}

	List<WorkerInfo> workers() {
		QueueScriptExecutor.ScriptCall call = workersCall();
		return ScriptReplies.workers(this.executor.runForList(call.script(), call.keys(), call.args()));
	}

	/** The {@code workers.lua} call, for a pipeline of its own. */
	QueueScriptExecutor.ScriptCall workersCall() {
		return new QueueScriptExecutor.ScriptCall(this.executor.scripts().workers(),
				List.of(this.workersKey, this.infoKey), List.of());
	}

	private List<byte[]> heartbeatKeys(WorkerInfo worker) {
		return List.of(this.workersKey, this.infoKey, this.silentKey);
	}

}
