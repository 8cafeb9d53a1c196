package io.github.redisqueue.core.script;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.RedisCallback;

/**
 * Reads of several hashes at once, on the executor's connection: what a partitioned queue's
 * reserve reads of its partitions' payloads kept apart.
 */
public final class HashReads {

	private final QueueScriptExecutor executor;

	/**
	 * @param executor whose connection the reads go on
	 */
	public HashReads(QueueScriptExecutor executor) {
		this.executor = executor;
	}

	/**
	 * Reads fields of several hashes at once: one {@code HMGET} per hash, all sent before any is
	 * awaited (on a Redis Cluster each goes to its hash's node), so that reading the hashes of
	 * several partitions takes one round trip, not one each. Each read answers on its own: one that
	 * fails leaves the others as they are.
	 * @param keys the hashes
	 * @param fields the fields to read of each hash, in the same order
	 * @return per hash, its values in the order of its fields ({@code null} where a field is
	 * missing), or the failure of its read
	 */
	public List<HashRead> hmgetEach(List<byte[]> keys, List<byte[][]> fields) {
		int n = keys.size();
		HashRead[] reads = new HashRead[n];
		List<HashRead> sent;
		try {
			sent = this.executor.withLettuce((async) -> readEach(async, keys, fields, reads));
		}
		catch (RuntimeException ex) {
			// no connection, or the reads could not be sent
			return Collections.nCopies(n, new HashRead(null, ex));
		}
		if (sent != null) {
			return sent;
		}
		for (int i = 0; i < n; i++) {
			byte[] key = keys.get(i);
			byte[][] wanted = fields.get(i);
			try {
				reads[i] = new HashRead(this.executor.redis().execute(
						(RedisCallback<List<byte[]>>) (connection) -> connection.hashCommands().hMGet(key, wanted)), null);
			}
			catch (RuntimeException ex) {
				reads[i] = new HashRead(null, ex);
			}
		}
		return List.of(reads);
	}

	private List<HashRead> readEach(RedisClusterAsyncCommands<byte[], byte[]> async, List<byte[]> keys,
			List<byte[][]> fields, HashRead[] reads) {
		int n = keys.size();
		List<@Nullable RedisFuture<List<KeyValue<byte[], byte[]>>>> futures = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			try {
				futures.add(async.hmget(keys.get(i), fields.get(i)));
			}
			catch (RuntimeException ex) {
				// not sent: this read fails, the others go on
				futures.add(null);
				reads[i] = new HashRead(null, this.executor.calls().translate(ex));
			}
		}
		Duration timeout = this.executor.calls().commandTimeout();
		long deadline = System.nanoTime() + timeout.toNanos();
		for (int i = 0; i < n; i++) {
			RedisFuture<List<KeyValue<byte[], byte[]>>> future = futures.get(i);
			if (future == null) {
				continue;
			}
			try {
				List<byte @Nullable []> values = new ArrayList<>(fields.get(i).length);
				for (KeyValue<byte[], byte[]> value : this.executor.calls().await(future, deadline, timeout)) {
					values.add(value.getValueOrElse(null));
				}
				reads[i] = new HashRead(values, null);
			}
			catch (RuntimeException ex) {
				reads[i] = new HashRead(null, ex);
			}
		}
		return List.of(reads);
	}

	/**
	 * One read of {@link #hmgetEach}.
	 * @param values the values read, {@code null} when the read failed
	 * @param failure why it failed, {@code null} when it did not
	 */
	public record HashRead(@Nullable List<byte @Nullable []> values, @Nullable RuntimeException failure) {
	}

}
