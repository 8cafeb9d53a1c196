package io.github.redisqueue.testing.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Sentinel set owned by tests: a master and its replica ({@link RedisServerProcess}es) and
 * three sentinels ({@code redis-server <conf> --sentinel}), each on a free 127.0.0.1 port in a
 * temporary folder of its own, stopped by PID. The sentinels call the master down after one
 * second without an answer and need two of them to agree, so a SIGKILLed master's replica is
 * promoted within a few seconds.
 */
public final class RedisSentinelProcesses implements AutoCloseable {

	private static final String MASTER_NAME = "queues";

	private final RedisServerProcess master;

	private final RedisServerProcess replica;

	private final List<Process> sentinels = new ArrayList<>();

	private final List<Integer> sentinelPorts = new ArrayList<>();

	private RedisSentinelProcesses(RedisServerProcess master, RedisServerProcess replica) {
		this.master = master;
		this.replica = replica;
	}

	/** Start the master, the replica and the sentinels; wait until the sentinels see both and each other. */
	public static RedisSentinelProcesses start() {
		Path binary = TestRedis.serverBinary();
		RedisServerProcess master = new RedisServerProcess(binary).start();
		RedisSentinelProcesses set = null;
		try {
			RedisServerProcess replica = new RedisServerProcess(binary, "--replicaof", "127.0.0.1",
					String.valueOf(master.port())).start();
			set = new RedisSentinelProcesses(master, replica);
			for (int i = 0; i < 3; i++) {
				set.startSentinel(binary);
			}
			RedisSentinelProcesses started = set;
			RedisClusterProcesses.await(() -> call(replica.port(), "INFO", "replication").contains("master_link_status:up"),
					"the replica in sync");
			RedisClusterProcesses.await(() -> started.sentinelPorts.stream().allMatch(started::sees),
					"the sentinels to see the replica and each other");
			return set;
		}
		catch (RuntimeException ex) {
			if (set != null) {
				set.close();
			}
			else {
				master.close();
			}
			throw ex;
		}
	}

	private boolean sees(int port) {
		String info = call(port, "INFO", "sentinel");
		return info.contains("slaves=1") && info.contains("sentinels=3");
	}

	private void startSentinel(Path binary) {
		try {
			int port;
			try (ServerSocket socket = new ServerSocket(0)) {
				port = socket.getLocalPort();
			}
			Path dir = Files.createTempDirectory("redis-sentinel-");
			Path conf = dir.resolve("sentinel.conf");
			Files.writeString(conf, String.join("\n", "port " + port, "bind 127.0.0.1", "protected-mode no",
					"dir " + dir, "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + this.master.port() + " 2",
					"sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
					"sentinel failover-timeout " + MASTER_NAME + " 5000", ""));
			Process process = new ProcessBuilder(binary.toString(), conf.toString(), "--sentinel").redirectErrorStream(true)
				.redirectOutput(dir.resolve("sentinel.log").toFile())
				.start();
			this.sentinels.add(process);
			this.sentinelPorts.add(port);
			RedisClusterProcesses.await(() -> {
				try {
					return "PONG".equals(RespClient.call("127.0.0.1", port, "PING"));
				}
				catch (IOException ex) {
					return false;
				}
			}, "sentinel on port " + port + " to answer");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The name the sentinels monitor the master under. */
	public String masterName() {
		return MASTER_NAME;
	}

	/** The master as started. */
	public RedisServerProcess master() {
		return this.master;
	}

	/** The replica as started. */
	public RedisServerProcess replica() {
		return this.replica;
	}

	/** "127.0.0.1:port" of the sentinels. */
	public List<String> sentinelNodes() {
		return this.sentinelPorts.stream().map((port) -> "127.0.0.1:" + port).toList();
	}

	/** The port of the master the first sentinel that answers names now. */
	public int currentMasterPort() {
		for (int port : this.sentinelPorts) {
			try {
				String info = RespClient.call("127.0.0.1", port, "INFO", "sentinel");
				int at = info.indexOf("address=");
				if (at >= 0) {
					String address = info.substring(at + "address=".length(), info.indexOf(',', at));
					return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
				}
			}
			catch (IOException ex) {
				// try the next sentinel
			}
		}
		throw new IllegalStateException("No sentinel names a master");
	}

	private static String call(int port, String... args) {
		try {
			return RespClient.call("127.0.0.1", port, args);
		}
		catch (IOException ex) {
			return "";
		}
	}

	@Override
	public void close() {
		for (Process sentinel : this.sentinels) {
			sentinel.destroy();
		}
		for (Process sentinel : this.sentinels) {
			try {
				if (!sentinel.waitFor(10, TimeUnit.SECONDS)) {
					sentinel.destroyForcibly();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				sentinel.destroyForcibly();
			}
		}
		this.replica.close();
		this.master.close();
	}

}
