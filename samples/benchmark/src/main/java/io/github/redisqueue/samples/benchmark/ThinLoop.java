package io.github.redisqueue.samples.benchmark;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.redisqueue.support.converter.JobSerializer;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * The reference the benchmark compares with: a thin loop on plain Redis lists, with no leases,
 * retries, priorities or bookkeeping. A producer serializes the payload as the template does and
 * sends {@code LPUSH}; a consumer moves a job to a processing list ({@code LMOVE}, or
 * {@code BLMOVE} when it waits) and removes it when done ({@code LREM}): two round trips per job,
 * the least a reliable design pays with one call per job. Its connections come from the same
 * Lettuce client as the template's, so the benchmark counts their commands too.
 */
final class ThinLoop implements AutoCloseable {

	private static final byte[] QUEUE = "thin:queue".getBytes(StandardCharsets.UTF_8);

	private static final byte[] PROCESSING = "thin:processing".getBytes(StandardCharsets.UTF_8);

	private static final LMoveArgs RIGHT_LEFT = LMoveArgs.Builder.rightLeft();

	private final RedisClient client;

	private final RedisURI uri;

	private final JobSerializer serializer;

	private final int concurrency;

	private final StatefulRedisConnection<byte[], byte[]> producer;

	ThinLoop(RedisUnderTest redis, JobSerializer serializer, int concurrency) {
		this.client = (RedisClient) redis.connectionFactory().getRequiredNativeClient();
		this.uri = RedisURI.create(redis.host(), redis.port());
		this.serializer = serializer;
		this.concurrency = concurrency;
		this.producer = this.client.connect(ByteArrayCodec.INSTANCE, this.uri);
	}

	/** Enqueue one job: its payload serialized, one LPUSH. */
	void push(BenchPayload payload) {
		this.producer.sync().lpush(QUEUE, this.serializer.serialize(payload));
	}

	/** Enqueue jobs in one LPUSH. */
	void pushAll(List<BenchPayload> payloads) {
		byte[][] values = new byte[payloads.size()][];
		for (int i = 0; i < values.length; i++) {
			values[i] = this.serializer.serialize(payloads.get(i));
		}
		this.producer.sync().lpush(QUEUE, values);
	}

	/**
	 * Drain the queue with the consumers, each on a connection of its own, until it is empty.
	 * @return how many jobs they took
	 */
	long drain() throws Exception {
		AtomicLong taken = new AtomicLong();
		runConsumers((commands, stop) -> {
			byte[] job;
			while ((job = commands.lmove(QUEUE, PROCESSING, RIGHT_LEFT)) != null) {
				commands.lrem(PROCESSING, 1, job);
				taken.incrementAndGet();
			}
		}, null);
		return taken.get();
	}

	/**
	 * Enqueue {@code n} jobs at {@code rate} per second while the consumers wait on BLMOVE, and
	 * measure each job from its enqueue to the moment a consumer holds it.
	 * @return the latencies in nanoseconds
	 */
	long[] latencies(int n, int rate) throws Exception {
		long[] latencies = new long[n];
		AtomicInteger received = new AtomicInteger();
		AtomicBoolean stop = new AtomicBoolean();
		runConsumers((commands, stopped) -> {
			while (!stopped.get()) {
				byte[] job = commands.blmove(QUEUE, PROCESSING, RIGHT_LEFT, 0.1);
				if (job == null) {
					continue;
				}
				long now = System.nanoTime();
				BenchPayload payload = this.serializer.deserialize(job, BenchPayload.class);
				latencies[(int) payload.id()] = now - payload.sentNanos();
				commands.lrem(PROCESSING, 1, job);
				received.incrementAndGet();
			}
		}, () -> {
			long interval = TimeUnit.SECONDS.toNanos(1) / rate;
			long next = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
			for (int i = 0; i < n; i++) {
				LockSupport.parkNanos(next - System.nanoTime());
				push(BenchPayload.of(i, System.nanoTime()));
				next += interval;
			}
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			while (received.get() < n && System.nanoTime() < deadline) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
			}
			stop.set(true);
		}, stop);
		if (received.get() != n) {
			throw new IllegalStateException("thin loop received " + received.get() + " of " + n + " jobs");
		}
		return latencies;
	}

	private void runConsumers(Consumer consumer, Runnable producing) throws Exception {
		runConsumers(consumer, producing, new AtomicBoolean());
	}

	/** Run the consumers (and the producer, if any, on this thread) until every consumer ends. */
	private void runConsumers(Consumer consumer, Runnable producing, AtomicBoolean stop) throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(this.concurrency);
		List<StatefulRedisConnection<byte[], byte[]>> connections = new ArrayList<>();
		try {
			List<Future<?>> running = new ArrayList<>();
			for (int i = 0; i < this.concurrency; i++) {
				StatefulRedisConnection<byte[], byte[]> connection = this.client.connect(ByteArrayCodec.INSTANCE,
						this.uri);
				connections.add(connection);
				running.add(threads.submit(() -> {
					consumer.consume(connection.sync(), stop);
					return null;
				}));
			}
			if (producing != null) {
				producing.run();
			}
			for (Future<?> future : running) {
				future.get();
			}
		}
		finally {
			threads.shutdownNow();
			connections.forEach(StatefulRedisConnection::close);
		}
	}

	@Override
	public void close() {
		this.producer.close();
	}

	/** One consumer's loop on its own connection. */
	private interface Consumer {

		void consume(RedisCommands<byte[], byte[]> commands, AtomicBoolean stop) throws Exception;

	}

}
