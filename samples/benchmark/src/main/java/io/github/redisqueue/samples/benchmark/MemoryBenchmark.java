package io.github.redisqueue.samples.benchmark;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.support.converter.JobSerializer;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ValueEncoding;

/**
 * The memory benchmark ({@code --memory}): for each payload size of {@code --payload-bytes}, Redis
 * memory per queued job. A flushed Redis's {@code used_memory} is read, {@code --memory-jobs} jobs
 * are enqueued in chunks of 1,000 and left waiting, and the memory is read again; the difference
 * divided by the jobs is the cost of one queued job, and that minus the payload as stored is its
 * overhead. A thin reference stores the same payloads in one list ({@code RPUSH}), the floor of
 * any queue that keeps jobs in Redis. The encodings of the queue's keys are printed too: a hash or
 * sorted set leaves Redis's compact listpack encoding once a value is longer than
 * {@code hash-max-listpack-value} (64 bytes by default) or it holds more than 128 entries.
 */
final class MemoryBenchmark {

	private static final String QUEUE = "memory";

	private final BenchmarkConfig config;

	private final RedisUnderTest redis;

	private MemoryBenchmark(BenchmarkConfig config, RedisUnderTest redis) {
		this.config = config;
		this.redis = redis;
	}

	static void main(BenchmarkConfig config) throws Exception {
		Map<String, Object> report = measure(config);
		QueueBenchmark.writeJson(config, report);
	}

	/** Measure every payload size and print the table; the figures, for the JSON. */
	static Map<String, Object> measure(BenchmarkConfig config) throws Exception {
		try (RedisUnderTest redis = RedisUnderTest.start(config.redisUrl())) {
			return new MemoryBenchmark(config, redis).run();
		}
	}

	private Map<String, Object> run() {
		QueueTemplate queues = new QueueTemplate(this.redis.connectionFactory());
		int n = this.config.memoryJobs();
		List<Map<String, Object>> sizes = new ArrayList<>();
		StringBuilder out = new StringBuilder("redis-queue memory benchmark: ").append(n)
			.append(" queued jobs per payload size, Redis ")
			.append(this.redis.version())
			.append(", hash-max-listpack-value ")
			.append(config("hash-max-listpack-value"))
			.append('\n');
		out.append(String.format("%14s %18s %22s %18s %22s  %s%n", "payload bytes", "queue bytes/job",
				"queue beyond payload", "list bytes/job", "list beyond payload", "encodings (jobs, ready, ready:plain)"));
		for (int size : this.config.payloadBytes()) {
			String payload = payload(queues.getSerializer(), size);
			int stored = queues.getSerializer().serialize(payload).length;
			this.redis.flushAll();
			long before = usedMemory();
			List<String> chunk = new ArrayList<>(1000);
			for (int i = 0; i < n; i++) {
				chunk.add(payload);
				if (chunk.size() == 1000 || i == n - 1) {
					queues.enqueueAll(QUEUE, chunk, JobOptions.defaults());
					chunk.clear();
				}
			}
			double perJob = (usedMemory() - before) / (double) n;
			String encodings = encoding("{rq:" + QUEUE + "}:jobs") + ", " + encoding("{rq:" + QUEUE + "}:ready")
					+ ", " + encoding("{rq:" + QUEUE + "}:ready:plain");
			this.redis.flushAll();
			long listBefore = usedMemory();
			byte[] raw = payload.getBytes(StandardCharsets.UTF_8);
			try (RedisConnection connection = this.redis.connectionFactory().getConnection()) {
				byte[][] values = new byte[1000][];
				Arrays.fill(values, raw);
				for (int done = 0; done < n; done += 1000) {
					int count = Math.min(1000, n - done);
					connection.listCommands().rPush("memory-list".getBytes(StandardCharsets.UTF_8),
							(count == 1000) ? values : Arrays.copyOf(values, count));
				}
			}
			double listPerJob = (usedMemory() - listBefore) / (double) n;
			this.redis.flushAll();
			out.append(String.format("%14d %18.0f %22.0f %18.0f %22.0f  %s%n", stored, perJob, perJob - stored,
					listPerJob, listPerJob - raw.length, encodings));
			Map<String, Object> figures = new LinkedHashMap<>();
			figures.put("payloadBytesStored", stored);
			figures.put("queueBytesPerJob", Math.round(perJob));
			figures.put("queueBytesBeyondPayload", Math.round(perJob - stored));
			figures.put("listBytesPerJob", Math.round(listPerJob));
			figures.put("listBytesBeyondPayload", Math.round(listPerJob - raw.length));
			figures.put("encodings", encodings);
			sizes.add(figures);
		}
		System.out.print(out);
		Map<String, Object> report = new LinkedHashMap<>();
		report.put("date", Instant.now().toString());
		report.put("redisVersion", this.redis.version());
		report.put("jobsPerSize", n);
		report.put("sizes", sizes);
		return report;
	}

	/** A JSON string payload whose serialized form has exactly {@code size} bytes. */
	static String payload(JobSerializer serializer, int size) {
		String payload = "x".repeat(Math.max(0, size - 2));
		int stored = serializer.serialize(payload).length;
		if (stored != size) {
			throw new IllegalStateException("a payload of " + size + " bytes serializes to " + stored);
		}
		return payload;
	}

	private long usedMemory() {
		Properties info = this.redis.info("memory");
		return Long.parseLong(info.getProperty("used_memory"));
	}

	private String encoding(String key) {
		try (RedisConnection connection = this.redis.connectionFactory().getConnection()) {
			ValueEncoding encoding = connection.keyCommands().encodingOf(key.getBytes(StandardCharsets.UTF_8));
			return (encoding.raw() != null) ? encoding.raw() : "none";
		}
	}

	private String config(String name) {
		try (RedisConnection connection = this.redis.connectionFactory().getConnection()) {
			Properties values = connection.serverCommands().getConfig(name);
			return values.getProperty(name, "?");
		}
	}

}
