package io.github.redisqueue.core.reactive;

import java.nio.charset.StandardCharsets;

import io.github.redisqueue.core.script.QueueKeys;
import io.github.redisqueue.core.script.QueueRegistration;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.data.redis.core.ReactiveRedisTemplate;

import static io.github.redisqueue.core.script.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;

/**
 * The reactive side of a template's {@link QueueRegistration}, whose state it shares: the layout
 * check before the first script call ({@link #open()}) and the registration of a queue before its
 * first enqueue or batch ({@link #register}), with the same reads, writes, checks and refusals as
 * the blocking path. A prefix of the old layout that must be migrated is migrated by the blocking
 * {@link QueueRegistration#open()} on Reactor's bounded elastic scheduler: a one-time job of many
 * short script calls, during which the template's other callers wait.
 */
public final class ReactiveRegistration {

	private final QueueRegistration registration;

	private final ReactiveRedisTemplate<byte[], byte[]> redis;

	public ReactiveRegistration(QueueRegistration registration, ReactiveRedisTemplate<byte[], byte[]> redis) {
		this.registration = registration;
		this.redis = redis;
	}

	/** Before the first script call: accepts the layout found under the prefix (see {@link QueueRegistration#open()}). */
	public Mono<Void> open() {
		if (this.registration.isOpened()) {
			return Mono.empty();
		}
		return this.redis.opsForValue()
			.get(encodeUtf8(QueueKeys.layoutKey(this.registration.prefix())))
			.map((found) -> this.registration.needsMigration(text(found)))
			.defaultIfEmpty(false)
			.flatMap((migrate) -> migrate ? migrate() : Mono.<Void>fromRunnable(this.registration::opened));
	}

	/** Records the queue in the registry once, after checking the layout and its partition count (see {@link QueueRegistration#register}). */
	public Mono<Void> register(QueueKeys k) {
		if (this.registration.isRegistered(k.queue())) {
			return Mono.empty();
		}
		byte[] layoutKey = encodeUtf8(QueueKeys.layoutKey(this.registration.prefix()));
		Mono<Boolean> layout = this.redis.opsForValue()
			.setIfAbsent(layoutKey, encodeAscii(QueueKeys.LAYOUT_VERSION))
			.flatMap((created) -> created ? Mono.just(false)
					: this.redis.opsForValue()
						.get(layoutKey)
						.map((found) -> this.registration.needsMigration(text(found)))
						.defaultIfEmpty(false));
		return layout.flatMap((migrate) -> migrate ? migrate() : Mono.<Void>empty())
			.then(checkPartitions(k))
			.then(this.redis.opsForSet()
				.add(encodeUtf8(QueueKeys.registryKey(this.registration.prefix())), encodeUtf8(k.queue())))
			.then(Mono.<Void>fromRunnable(() -> this.registration.registered(k.queue())));
	}

	/** See the blocking check: a partitioned queue records its count once, and no queue holding jobs becomes partitioned. */
	private Mono<Void> checkPartitions(QueueKeys k) {
		byte[] key = encodeUtf8(QueueKeys.partitionsKey(this.registration.prefix()));
		byte[] field = encodeUtf8(k.queue());
		Mono<byte[]> recorded = this.redis.<byte[], byte[]>opsForHash().get(key, field);
		return recorded.map(Recorded::new).defaultIfEmpty(Recorded.NONE).flatMap((found) -> {
			if (found.value() != null || k.partitionCount() == 1) {
				return Mono.just(found);
			}
			return Flux.fromIterable(this.registration.heldKeys(k))
				.concatMap(this.redis::hasKey)
				.any(Boolean::booleanValue)
				.flatMap((held) -> held ? Mono.<Recorded>error(QueueRegistration.heldAsOne(k))
						: this.redis.<byte[], byte[]>opsForHash()
							.putIfAbsent(key, field, encodeAscii(Integer.toString(k.partitionCount())))
							.then(this.redis.<byte[], byte[]>opsForHash().get(key, field))
							.map(Recorded::new)
							.defaultIfEmpty(Recorded.NONE));
		}).doOnNext((found) -> this.registration.checkRecorded(k, found.value())).then();
	}

	/** The migration of the old layout, by the blocking path off the caller's thread. */
	private Mono<Void> migrate() {
		return Mono.fromRunnable(this.registration::migrateFound).subscribeOn(Schedulers.boundedElastic()).then();
	}

	private static String text(byte[] value) {
		return new String(value, StandardCharsets.UTF_8);
	}

	/** A partition count found in Redis, or none. */
	private record Recorded(byte @Nullable [] value) {

		static final Recorded NONE = new Recorded(null);

	}

}
