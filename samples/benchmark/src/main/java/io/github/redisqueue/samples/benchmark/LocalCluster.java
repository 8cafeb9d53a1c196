package io.github.redisqueue.samples.benchmark;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A Redis Cluster of its own for the benchmark: {@code masters} redis-server processes on free
 * 127.0.0.1 ports (each in a temporary folder, without persistence), the 16384 slots split evenly
 * among them in order, and {@code replicasPerMaster} replicas each; stopped by PID on close.
 */
final class LocalCluster implements AutoCloseable {

	private final List<Process> processes = new ArrayList<>();

	private final List<Integer> masterPorts = new ArrayList<>();

	private final List<Integer> allPorts = new ArrayList<>();

	private LocalCluster() {
	}

	static LocalCluster start(Path binary, int masters, int replicasPerMaster) throws IOException {
		LocalCluster cluster = new LocalCluster();
		try {
			for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
				cluster.startNode(binary, i < masters);
			}
			cluster.join(masters, replicasPerMaster);
			return cluster;
		}
		catch (IOException | RuntimeException ex) {
			cluster.close();
			throw ex;
		}
	}

	/** "127.0.0.1:port" of every node. */
	List<String> seeds() {
		return this.allPorts.stream().map((port) -> "127.0.0.1:" + port).toList();
	}

	List<Integer> masterPorts() {
		return this.masterPorts;
	}

	private void startNode(Path binary, boolean master) throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		Path dir = Files.createTempDirectory("redis-bench-cluster-");
		Process process = new ProcessBuilder(binary.toString(), "--port", String.valueOf(port), "--bind", "127.0.0.1",
				"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000",
				"--save", "", "--appendonly", "no", "--dir", dir.toString())
			.redirectErrorStream(true)
			.redirectOutput(dir.resolve("redis.log").toFile())
			.start();
		Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
		this.processes.add(process);
		this.allPorts.add(port);
		if (master) {
			this.masterPorts.add(port);
		}
	}

	private void join(int masters, int replicasPerMaster) {
		List<RedisClient> clients = new ArrayList<>();
		List<RedisCommands<String, String>> nodes = new ArrayList<>();
		try {
			for (int port : this.allPorts) {
				RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
				clients.add(client);
				nodes.add(connect(client).sync());
			}
			for (int i = 0; i < masters; i++) {
				int from = i * 16384 / masters;
				int to = (i + 1) * 16384 / masters;
				nodes.get(i).clusterAddSlots(IntStream.range(from, to).toArray());
			}
			for (int i = 1; i < nodes.size(); i++) {
				nodes.get(i).clusterMeet("127.0.0.1", this.allPorts.get(0));
			}
			await(() -> nodes.stream().allMatch((node) -> node.clusterNodes().lines().count() == nodes.size()),
					"every node knows every other");
			for (int r = 0; r < masters * replicasPerMaster; r++) {
				String masterId = nodes.get(r % masters).clusterMyId();
				nodes.get(masters + r).clusterReplicate(masterId);
			}
			await(() -> nodes.stream().allMatch((node) -> node.clusterInfo().contains("cluster_state:ok")),
					"cluster_state:ok on every node");
			if (replicasPerMaster > 0) {
				await(() -> nodes.subList(masters, nodes.size()).stream()
					.allMatch((node) -> node.info("replication").contains("master_link_status:up")), "replicas in sync");
			}
		}
		finally {
			clients.forEach(RedisClient::shutdown);
		}
	}

	private static StatefulRedisConnection<String, String> connect(RedisClient client) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (true) {
			try {
				return client.connect();
			}
			catch (RuntimeException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
			}
		}
	}

	private static void await(java.util.function.BooleanSupplier condition, String what) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Local cluster: no " + what + " within 30 s");
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
		}
	}

	@Override
	public void close() {
		for (Process process : this.processes) {
			process.destroy();
		}
		for (Process process : this.processes) {
			try {
				if (!process.waitFor(10, TimeUnit.SECONDS)) {
					process.destroyForcibly();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				process.destroyForcibly();
			}
		}
	}

}
