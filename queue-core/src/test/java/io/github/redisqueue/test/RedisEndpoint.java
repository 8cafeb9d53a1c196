package io.github.redisqueue.test;

/**
 * Where a test Redis listens, and how it was obtained.
 *
 * @param host the host
 * @param port the port
 * @param origin which source gave it, e.g. {@code REDIS_URL}, {@code testcontainers},
 * {@code redis-server on PATH (/usr/bin/redis-server)} or {@code embedded-redis 0.9.1 binary}; used
 * in logs and failure messages
 */
public record RedisEndpoint(String host, int port, String origin) {

	/**
	 * The endpoint as a URI.
	 * @return {@code redis://host:port}
	 */
	public String uri() {
		return "redis://" + this.host + ":" + this.port;
	}

}
