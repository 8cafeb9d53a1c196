package io.github.redisqueue.samples.benchmark;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ObjLongConsumer;

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

	// a blocked consumer's wait, renewed when it times out (below the client's command timeout)
	private static final double BLOCK_SECONDS = 20;

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
		runConsumers((commands) -> {
			byte[] job;
			while ((job = commands.lmove(QUEUE, PROCESSING, RIGHT_LEFT)) != null) {
				commands.lrem(PROCESSING, 1, job);
				taken.incrementAndGet();
			}
		});
		return taken.get();
	}

	/**
	 * Enqueue jobs {@code 0} to {@code n - 1} from {@code threads} producer threads, one LPUSH per
	 * job, all on the producer's connection (as the template's threads share its connection).
	 */
	void pushFromThreads(int n, int threads) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> running = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int first = t;
				running.add(pool.submit(() -> {
					for (int i = first; i < n; i += threads) {
						push(BenchPayload.of(i, 0));
					}
					return null;
				}));
			}
			for (Future<?> future : running) {
				future.get();
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	/**
	 * Start the consumers, each blocked on {@code BLMOVE} on a connection of its own, handing each
	 * job it takes to {@code handler} (after deserializing it, where a handler would start) and
	 * then removing it with {@code LREM}. They run until {@link Blocked#close()}.
	 */
	Blocked blocked(ObjLongConsumer<BenchPayload> handler) {
		return new Blocked(handler);
	}

	/** Consumers blocked on the queue until closed; see {@link #blocked}. */
	final class Blocked implements AutoCloseable {

		private final ExecutorService threads = Executors.newFixedThreadPool(ThinLoop.this.concurrency);

		private final List<StatefulRedisConnection<byte[], byte[]>> connections = new ArrayList<>();

		private final List<Future<?>> running = new ArrayList<>();

		private final AtomicBoolean stop = new AtomicBoolean();

		Blocked(ObjLongConsumer<BenchPayload> handler) {
			for (int i = 0; i < ThinLoop.this.concurrency; i++) {
				StatefulRedisConnection<byte[], byte[]> connection = ThinLoop.this.client.connect(ByteArrayCodec.INSTANCE,
						ThinLoop.this.uri);
				this.connections.add(connection);
				RedisCommands<byte[], byte[]> commands = connection.sync();
				this.running.add(this.threads.submit(() -> {
					while (!this.stop.get()) {
						byte[] job = commands.blmove(QUEUE, PROCESSING, RIGHT_LEFT, BLOCK_SECONDS);
						if (job == null || job.length == 0) {
							continue;
						}
						BenchPayload payload = ThinLoop.this.serializer.deserialize(job, BenchPayload.class);
						handler.accept(payload, System.nanoTime());
						commands.lrem(PROCESSING, 1, job);
					}
					return null;
				}));
			}
		}

		@Override
		public void close() throws Exception {
			this.stop.set(true);
			// one empty element per consumer ends its wait
			for (int i = 0; i < ThinLoop.this.concurrency; i++) {
				ThinLoop.this.producer.sync().lpush(QUEUE, new byte[0]);
			}
			try {
				for (Future<?> future : this.running) {
					future.get();
				}
			}
			finally {
				this.threads.shutdownNow();
				this.connections.forEach(StatefulRedisConnection::close);
			}
		}

	}

	/** Run the consumers until every one ends. */
	private void runConsumers(Consumer consumer) throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(this.concurrency);
		List<StatefulRedisConnection<byte[], byte[]>> connections = new ArrayList<>();
		try {
			List<Future<?>> running = new ArrayList<>();
			for (int i = 0; i < this.concurrency; i++) {
				StatefulRedisConnection<byte[], byte[]> connection = this.client.connect(ByteArrayCodec.INSTANCE,
						this.uri);
				connections.add(connection);
				running.add(threads.submit(() -> {
					consumer.consume(connection.sync());
					return null;
				}));
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

		void consume(RedisCommands<byte[], byte[]> commands) throws Exception;

	}

}
