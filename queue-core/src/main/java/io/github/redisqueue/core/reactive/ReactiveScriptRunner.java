package io.github.redisqueue.core.reactive;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.github.redisqueue.core.QueueScripts;
import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueScriptExecutor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.ReactiveRedisCallback;
import org.springframework.data.redis.core.ReactiveRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.serializer.RedisSerializationContext;

/**
 * Runs the engine's scripts through Spring Data Redis's reactive API: by SHA, and as a plain EVAL
 * when Redis lost the script ({@code NOSCRIPT}: a restart, a failover, {@code SCRIPT FLUSH}), as the
 * blocking {@link QueueScriptExecutor} does, with the same keys and arguments
 * ({@link QueueScriptExecutor#keys}, {@link QueueScriptExecutor#queueArgs}). Replies come back as the
 * blocking executor's do: a list whose strings are byte arrays and whose integers are longs, ready
 * for the same decoders. The reactive API of Spring Data Redis has no {@code FCALL}, so these calls
 * do not use the scripts' Functions library (the same text, the same replies, about 10 us more of
 * Redis time per call of one job).
 */
public final class ReactiveScriptRunner {

	private final ReactiveRedisTemplate<byte[], byte[]> redis;

	private final QueueScripts scripts;

	public ReactiveScriptRunner(ReactiveRedisConnectionFactory connectionFactory, QueueScripts scripts) {
		this.redis = new ReactiveRedisTemplate<>(connectionFactory, RedisSerializationContext.byteArray());
		this.scripts = scripts;
	}

	/** The template for the plain commands around the scripts. */
	public ReactiveRedisTemplate<byte[], byte[]> redis() {
		return this.redis;
	}

	public QueueScripts scripts() {
		return this.scripts;
	}

	/** Runs a script of one queue: its keys then {@code extraKeys}, and {@code args} after its channel and id form. */
	public Mono<List<Object>> run(RedisScript<?> script, QueueKeys k, List<byte[]> extraKeys, List<byte[]> args) {
		List<byte[]> keys = QueueScriptExecutor.keys(k, extraKeys);
		List<byte[]> argv = QueueScriptExecutor.queueArgs(k, args);
		ByteBuffer[] keysAndArgs = new ByteBuffer[keys.size() + argv.size()];
		int at = 0;
		for (byte[] key : keys) {
			keysAndArgs[at++] = ByteBuffer.wrap(key);
		}
		for (byte[] arg : argv) {
			keysAndArgs[at++] = ByteBuffer.wrap(arg);
		}
		return this.redis.execute((ReactiveRedisCallback<Object>) (connection) -> {
			Flux<Object> sha = connection.scriptingCommands()
				.evalSha(script.getSha1(), ReturnType.MULTI, keys.size(), duplicates(keysAndArgs));
			return sha.onErrorResume(QueueScriptExecutor::isNoScript,
					(ex) -> connection.scriptingCommands()
						.eval(ByteBuffer.wrap(script.getScriptAsString().getBytes(StandardCharsets.UTF_8)),
								ReturnType.MULTI, keys.size(), duplicates(keysAndArgs)));
		}).collectList().map(ReactiveScriptRunner::reply);
	}

	/** Buffers read anew: a call retried after NOSCRIPT sends the same bytes again. */
	private static ByteBuffer[] duplicates(ByteBuffer[] buffers) {
		ByteBuffer[] copies = new ByteBuffer[buffers.length];
		for (int i = 0; i < buffers.length; i++) {
			copies[i] = buffers[i].duplicate();
		}
		return copies;
	}

	/**
	 * The reply as one list: the driver hands a multi-bulk reply over as one element that is the
	 * list; its strings become byte arrays.
	 */
	private static List<Object> reply(List<Object> elements) {
		List<?> reply = (elements.size() == 1 && elements.get(0) instanceof List<?> list) ? list : elements;
		List<Object> values = new ArrayList<>(reply.size());
		for (Object value : reply) {
			values.add(value(value));
		}
		return values;
	}

	private static Object value(Object value) {
		if (value instanceof ByteBuffer buffer) {
			byte[] bytes = new byte[buffer.remaining()];
			buffer.duplicate().get(bytes);
			return bytes;
		}
		if (value instanceof List<?> list) {
			List<Object> values = new ArrayList<>(list.size());
			list.forEach((item) -> values.add(value(item)));
			return values;
		}
		return value;
	}

}
