package io.github.redisqueue.core.script;

import java.util.Locale;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What {@link QueueScriptExecutor} reads in a failed call (the error Redis answered, found among
 * the causes and pipelined replies), and where a Lettuce cluster connection sends a call.
 */
final class ScriptFailures {

	private ScriptFailures() {
	}

	/** Whether a failure, or one of its causes or pipelined replies, says {@code text}. */
	static boolean mentions(Throwable failure, String text) {
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (String.valueOf(t.getMessage()).contains(text)) {
				return true;
			}
			if (t instanceof RedisPipelineException pipeline) {
				for (Object result : pipeline.getPipelineResult()) {
					if (result instanceof Throwable nested && mentions(nested, text)) {
						return true;
					}
				}
			}
		}
		return false;
	}

	/** The error reply of Redis that a failure holds, {@code null} for a failure to reach Redis. */
	static @Nullable String redisError(Throwable failure) {
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (t instanceof RedisCommandExecutionException) {
				return String.valueOf(t.getMessage());
			}
		}
		return null;
	}

	/** Whether a failure says that the node does not have the called function. */
	static boolean isFunctionMissing(Throwable failure) {
		return mentions(failure, "Function not found");
	}

	/** Whether a failure is Redis's refusal of a command past {@code maxmemory} ({@code OOM}). */
	static boolean isOutOfMemory(Throwable failure) {
		return mentions(failure, "OOM command not allowed");
	}

	/**
	 * Whether a failure says that Redis has no Functions ({@code FCALL} or {@code FUNCTION} an
	 * unknown command) or does not let this user load or call them ({@code NOPERM} naming them).
	 */
	static boolean refusesFunctions(Throwable failure) {
		for (Throwable t = failure; t != null; t = t.getCause()) {
			String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
			boolean namesIt = message.contains("fcall`") || message.contains("fcall'") || message.contains("function`")
					|| message.contains("function'") || message.contains("function|load");
			if (namesIt && (message.contains("unknown command") || message.contains("noperm"))) {
				return true;
			}
		}
		return false;
	}

	/** The connection to the master of {@code key}'s slot on a cluster; the connection itself otherwise. */
	@SuppressWarnings("unchecked")
	static RedisClusterAsyncCommands<byte[], byte[]> nodeOf(RedisClusterAsyncCommands<byte[], byte[]> async,
			byte[] key) {
		if (async instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
			RedisClusterNode master = cluster.getStatefulConnection().getPartitions().getMasterBySlot(SlotHash.getSlot(key));
			if (master != null) {
				return (RedisClusterAsyncCommands<byte[], byte[]>) cluster.getConnection(master.getNodeId());
			}
		}
		return async;
	}

	/**
	 * Asks the Lettuce cluster client to read the cluster's slots again (unless it is reading them
	 * already), so that the master of a moved slot, and the library's load, are found there.
	 */
	static void refreshClusterView(RedisConnectionFactory connectionFactory) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce
				&& lettuce.getNativeClient() instanceof RedisClusterClient cluster && !cluster.isTopologyRefreshInProgress()) {
			cluster.refreshPartitionsAsync();
		}
	}

}
