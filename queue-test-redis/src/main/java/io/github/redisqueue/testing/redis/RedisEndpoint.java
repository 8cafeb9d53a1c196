package io.github.redisqueue.testing.redis;

import java.util.List;

/**
 * Where a test Redis listens, and how it was obtained.
 *
 * @param host the host (of one seed node for a cluster)
 * @param port the port (of one seed node for a cluster)
 * @param origin which source gave it, for failure messages and logs
 * @param clusterNodes "host:port" of every node of a Redis Cluster; empty for a single server
 */
public record RedisEndpoint(String host, int port, String origin, List<String> clusterNodes) {

	/** A single server. */
	public RedisEndpoint(String host, int port, String origin) {
		this(host, port, origin, List.of());
	}

	/** Whether this is a Redis Cluster. */
	public boolean isCluster() {
		return !this.clusterNodes.isEmpty();
	}

	/** The endpoint as a {@code redis://host:port} URI. */
	public String uri() {
		return "redis://" + this.host + ":" + this.port;
	}

}
