package io.github.redisqueue.test;

/**
 * Where a test Redis listens, and how it was obtained.
 *
 * @param host the host
 * @param port the port
 * @param origin which source gave it, for failure messages and logs
 */
public record RedisEndpoint(String host, int port, String origin) {

	/** The endpoint as a {@code redis://host:port} URI. */
	public String uri() {
		return "redis://" + this.host + ":" + this.port;
	}

}
