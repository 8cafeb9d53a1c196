package io.github.redisqueue.testing.redis;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A local Redis Cluster owned by tests: three masters and one replica each, every node a
 * {@link RedisServerProcess} on a free 127.0.0.1 port in a temporary folder of its own, joined
 * with {@code CLUSTER MEET}, {@code CLUSTER ADDSLOTSRANGE} (the 16384 slots split evenly, in
 * order) and {@code CLUSTER REPLICATE}, and stopped by PID. Nodes declare a peer down after one
 * second, so a SIGKILLed master's replica takes over within a few seconds.
 */
public final class RedisClusterProcesses implements AutoCloseable {

	private static final int MASTERS = 3;

	private final List<RedisServerProcess> masters = new ArrayList<>();

	private final List<RedisServerProcess> replicas = new ArrayList<>();

	private RedisClusterProcesses() {
	}

	/** Start, join and wait for a healthy cluster ({@code cluster_state:ok}, replicas in sync). */
	public static RedisClusterProcesses start() {
		RedisClusterProcesses cluster = new RedisClusterProcesses();
		try {
			Path binary = TestRedis.serverBinary();
			for (int i = 0; i < MASTERS * 2; i++) {
				RedisServerProcess node = new RedisServerProcess(binary, "--cluster-enabled", "yes", "--cluster-config-file",
						"nodes.conf", "--cluster-node-timeout", "1000", "--cluster-replica-validity-factor", "0").start();
				((i < MASTERS) ? cluster.masters : cluster.replicas).add(node);
			}
			cluster.join();
			return cluster;
		}
		catch (RuntimeException ex) {
			cluster.close();
			throw ex;
		}
	}

	private void join() {
		List<RedisServerProcess> nodes = nodes();
		for (int i = 0; i < MASTERS; i++) {
			call(this.masters.get(i), "CLUSTER", "ADDSLOTSRANGE", String.valueOf(i * 16384 / MASTERS),
					String.valueOf((i + 1) * 16384 / MASTERS - 1));
		}
		for (RedisServerProcess node : nodes.subList(1, nodes.size())) {
			call(node, "CLUSTER", "MEET", "127.0.0.1", String.valueOf(nodes.get(0).port()));
		}
		await(() -> nodes.stream().allMatch((node) -> call(node, "CLUSTER", "NODES").lines().count() == nodes.size()),
				"every node to know the others");
		for (int i = 0; i < MASTERS; i++) {
			call(this.replicas.get(i), "CLUSTER", "REPLICATE", call(this.masters.get(i), "CLUSTER", "MYID"));
		}
		await(() -> nodes.stream().allMatch((node) -> call(node, "CLUSTER", "INFO").contains("cluster_state:ok")),
				"cluster_state:ok on every node");
		await(() -> this.replicas.stream()
			.allMatch((node) -> call(node, "INFO", "replication").contains("master_link_status:up")), "replicas in sync");
	}

	/** The masters, in the order of their slot ranges. */
	public List<RedisServerProcess> masters() {
		return List.copyOf(this.masters);
	}

	/** The replicas; the i-th replicates the i-th master as started. */
	public List<RedisServerProcess> replicas() {
		return List.copyOf(this.replicas);
	}

	/** "127.0.0.1:port" of every node. */
	public List<String> seeds() {
		return nodes().stream().map((node) -> node.host() + ":" + node.port()).toList();
	}

	/** The master that owned {@code key}'s slot when the cluster started. */
	public RedisServerProcess masterOf(String key) {
		int slot = Integer.parseInt(call(this.masters.get(0), "CLUSTER", "KEYSLOT", key));
		int i = 0;
		while ((i + 1) * 16384 / MASTERS <= slot) {
			i++;
		}
		return this.masters.get(i);
	}

	/** The replica started for {@code master}. */
	public RedisServerProcess replicaOf(RedisServerProcess master) {
		return this.replicas.get(this.masters.indexOf(master));
	}

	private List<RedisServerProcess> nodes() {
		List<RedisServerProcess> nodes = new ArrayList<>(this.masters);
		nodes.addAll(this.replicas);
		return nodes;
	}

	private static String call(RedisServerProcess node, String... args) {
		try {
			return RespClient.call(node.host(), node.port(), args);
		}
		catch (IOException ex) {
			throw new IllegalStateException(String.join(" ", args) + " on port " + node.port() + ": " + ex.getMessage(), ex);
		}
	}

	/** Waits at most 30 s for {@code condition}, then fails naming {@code what}. */
	static void await(BooleanSupplier condition, String what) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Test Redis servers: waited 30 s for " + what);
			}
			java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
		}
	}

	@Override
	public void close() {
		nodes().forEach(RedisServerProcess::close);
	}

}
