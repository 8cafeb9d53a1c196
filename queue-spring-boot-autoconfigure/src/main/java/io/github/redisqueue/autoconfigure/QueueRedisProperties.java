package io.github.redisqueue.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * A Redis of the queues' own, instead of the application's spring.data.redis connection.
 */
public class QueueRedisProperties {

	/**
	 * Redis URL for the queues, such as redis://user:secret@host:6379/0; when unset the
	 * application's RedisConnectionFactory is used.
	 */
	private @Nullable String url;

	/**
	 * Whether the queue scripts run as the functions of a Redis Functions library (FCALL,
	 * Redis 7 and later), loaded by the application: a call then skips the scripts' shared
	 * definitions. Where Redis has no Functions or the user may not load or call them, the
	 * scripts run by SHA (EVALSHA) instead; false runs them so always.
	 */
	private boolean functions = true;

	public @Nullable String getUrl() {
		return this.url;
	}

	public void setUrl(@Nullable String url) {
		this.url = url;
	}

	public boolean isFunctions() {
		return this.functions;
	}

	public void setFunctions(boolean functions) {
		this.functions = functions;
	}

}
