package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The per-minute history of a queue, kept in Redis in one bounded string per queue: completions
 * and failures count in the current minute, once per script call whatever the number of jobs it
 * acknowledges; slots of minutes skipped (up to and beyond a day) are zeroed when the clock moves
 * on, and the reader never counts a slot older than 24 hours; the key takes about 8 KB (MEMORY USAGE).
 */
class QueueHistoryIntegrationTests extends AbstractRedisIntegrationTests {

	private static final int SLOTS = QueueHistory.MINUTES;

	@Test
	void completionsAndFailuresCountInTheCurrentMinute() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		QueueHistory empty = admin.history("hist");
		assertThat(empty.completed()).hasSize(SLOTS).containsOnly(0L);
		assertThat(empty.failed()).hasSize(SLOTS).containsOnly(0L);
		awaitEarlyInMinute();

		queues.enqueueAll("hist", IntStream.range(0, 7).boxed().toList(),
				JobOptions.builder().maxAttempts(2).build());
		List<ReservedJob> jobs = queues.reserve("hist", 7, Duration.ofMinutes(1));
		for (int i = 0; i < 5; i++) {
			queues.complete("hist", jobs.get(i).ref());
		}
		// one failed attempt retried, then its second attempt dead-letters it; one failed at once
		queues.retry("hist", jobs.get(5).ref(), "boom", Duration.ZERO);
		ReservedJob again = queues.reserve("hist", 1, Duration.ofMinutes(1)).get(0);
		queues.retry("hist", again.ref(), "boom again", Duration.ZERO);

		QueueHistory history = admin.history("hist");
		assertThat(history.completed().get(SLOTS - 1)).isEqualTo(5);
		assertThat(history.failed().get(SLOTS - 1)).isEqualTo(2);
		assertThat(history.completedTotal()).isEqualTo(5);
		assertThat(history.failedTotal()).isEqualTo(2);
		assertThat(history.minute(SLOTS - 1)).isBefore(history.serverTime().plusMillis(1));
		assertThat(history.serverTime()).isBefore(history.minute(SLOTS - 1).plus(QueueHistory.STEP));
		assertThat(admin.counts("hist").total("completed")).isEqualTo(5);
	}

	@Test
	void theHistoryOfAPartitionedQueueSumsItsPartitions() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory,
				new io.github.redisqueue.support.converter.JacksonJobSerializer(),
				QueueSettings.builder().partitions("spread", 3).build());
		QueueAdmin admin = new QueueAdmin(queues);
		awaitEarlyInMinute();
		queues.enqueueAll("spread", IntStream.range(0, 12).boxed().toList(), JobOptions.defaults());
		List<ReservedJob> jobs = new java.util.ArrayList<>();
		for (int call = 0; call < 50 && jobs.size() < 12; call++) {
			jobs.addAll(queues.reserve("spread", 12 - jobs.size(), Duration.ofMinutes(1)));
		}
		assertThat(jobs).hasSize(12);
		jobs.forEach((job) -> queues.complete("spread", job.ref()));

		long written = IntStream.range(0, 3).filter((i) -> read(queues.partitions("spread")[i].key("history")).length > 0)
			.count();
		assertThat(written).as("partitions with a history of their own").isGreaterThan(1);
		assertThat(admin.history("spread").completed().get(SLOTS - 1)).isEqualTo(12);
	}

	@Test
	void slotsOfSkippedMinutesAcrossTheEndOfTheRingAreZeroed() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String key = queues.keys("wrap").key("history");
		long minute = awaitEarlyInMinute() / 60_000;
		// the last write was 1,439 minutes ago, every slot holds 7 completed and 3 failed: the
		// oldest minute of the window is the marker's and still counts, every other slot is stale
		write(key, filled(7, 3, minute - (SLOTS - 1)));
		QueueHistory before = admin.history("wrap");
		assertThat(before.completed().get(0)).isEqualTo(7);
		assertThat(before.failed().get(0)).isEqualTo(3);
		assertThat(before.completedTotal()).isEqualTo(7);

		queues.enqueue("wrap", "x");
		queues.complete("wrap", queues.reserve("wrap", 1, Duration.ofMinutes(1)).get(0).ref());

		byte[] raw = read(key);
		assertThat(raw).hasSize(SLOTS * 5 + 4);
		for (int slot = 0; slot < SLOTS; slot++) {
			long[] counts = slot(raw, slot);
			if (slot == (int) ((minute + 1) % SLOTS)) {
				assertThat(counts).as("slot of the marker's minute").containsExactly(7, 3);
			}
			else if (slot == (int) (minute % SLOTS)) {
				assertThat(counts).as("slot of this minute").containsExactly(1, 0);
			}
			else {
				assertThat(counts).as("slot " + slot).containsExactly(0, 0);
			}
		}
		assertThat(mark(raw)).isEqualTo(minute);
		QueueHistory after = admin.history("wrap");
		assertThat(after.completed().get(0)).isEqualTo(7);
		assertThat(after.completed().get(SLOTS - 1)).isEqualTo(1);
		assertThat(after.completedTotal()).isEqualTo(8);
	}

	@Test
	void aHistoryOlderThanADayCountsNothingAndIsClearedByTheNextWrite() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String key = queues.keys("old").key("history");
		long minute = awaitEarlyInMinute() / 60_000;
		write(key, filled(9, 9, minute - 2000));
		assertThat(admin.history("old").completedTotal()).isZero();
		assertThat(admin.history("old").failedTotal()).isZero();

		queues.enqueue("old", "x", JobOptions.builder().maxAttempts(1).build());
		queues.retry("old", queues.reserve("old", 1, Duration.ofMinutes(1)).get(0).ref(), "no", Duration.ZERO);

		byte[] raw = read(key);
		long nonZero = IntStream.range(0, SLOTS).filter((slot) -> slot(raw, slot)[0] + slot(raw, slot)[1] > 0).count();
		assertThat(nonZero).isEqualTo(1);
		assertThat(slot(raw, (int) (minute % SLOTS))).containsExactly(0, 1);
		assertThat(admin.history("old").failedTotal()).isEqualTo(1);
	}

	@Test
	void aQueueHistoryTakesAboutEightKilobytesAndOneCommandPerCall() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		awaitEarlyInMinute();
		queues.enqueueAll("mem", IntStream.range(0, 60).boxed().toList(), JobOptions.defaults());
		queues.complete("mem", queues.reserve("mem", 1, Duration.ofMinutes(1)).get(0).ref());
		String key = queues.keys("mem").key("history");
		long bitfields = calls(key, "bitfield");
		long setranges = calls(key, "setrange");

		// 20 acknowledgements one call each, then 39 carried by one reserve call
		List<ReservedJob> first = queues.reserve("mem", 20, Duration.ofMinutes(1));
		first.forEach((job) -> queues.complete("mem", job.ref()));
		List<JobRef> second = queues.reserve("mem", 39, Duration.ofMinutes(1)).stream().map(ReservedJob::ref).toList();
		queues.reserveBatch("mem", 1, Duration.ofMinutes(1), "worker", second);

		// one BITFIELD per call that counts (a minute boundary crossed costs one more and two SETRANGEs)
		assertThat(calls(key, "bitfield") - bitfields).isBetween(21L, 22L);
		assertThat(calls(key, "setrange") - setranges).isLessThanOrEqualTo(2);
		assertThat(admin.history("mem").completedTotal()).isEqualTo(60);
		Long memory = this.redis.execute(RedisScript.of("return redis.call('MEMORY', 'USAGE', KEYS[1])", Long.class),
				List.of(key));
		assertThat(read(key)).hasSize(SLOTS * 5 + 4);
		assertThat(memory).isNotNull().isLessThan(8 * 1024 + 256);
		System.out.println("MEMORY USAGE of a queue's history: " + memory + " bytes");
	}

	/** Waits until the Redis clock is in the first 40 s of a minute; returns its time (ms). */
	private long awaitEarlyInMinute() {
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
			.until(() -> serverMillis() % 60_000 < 40_000);
		return serverMillis();
	}

	private static byte[] filled(int completed, int failed, long mark) {
		byte[] bytes = new byte[SLOTS * 5 + 4];
		for (int slot = 0; slot < SLOTS; slot++) {
			put(bytes, slot * 5, completed, 3);
			put(bytes, slot * 5 + 3, failed, 2);
		}
		put(bytes, SLOTS * 5, mark, 4);
		return bytes;
	}

	private static void put(byte[] bytes, int at, long value, int length) {
		for (int i = length - 1; i >= 0; i--) {
			bytes[at + i] = (byte) (value & 0xFF);
			value >>>= 8;
		}
	}

	private static long get(byte[] bytes, int at, int length) {
		long value = 0;
		for (int i = 0; i < length; i++) {
			value = (value << 8) | (bytes[at + i] & 0xFF);
		}
		return value;
	}

	private static long[] slot(byte[] raw, int slot) {
		return new long[] { get(raw, slot * 5, 3), get(raw, slot * 5 + 3, 2) };
	}

	private static long mark(byte[] raw) {
		return get(raw, SLOTS * 5, 4);
	}

	private void write(String key, byte[] value) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.stringCommands().set(key.getBytes(StandardCharsets.UTF_8), value);
		}
	}

	private byte[] read(String key) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			byte[] value = connection.stringCommands().get(key.getBytes(StandardCharsets.UTF_8));
			return (value != null) ? value : new byte[0];
		}
	}

	/** Calls of a command on the server that holds {@code key} (on a cluster, the key's master). */
	private long calls(String key, String command) {
		String stats = this.redis.execute(RedisScript.of("return redis.call('INFO', 'commandstats')", String.class),
				List.of(key));
		return Arrays.stream((stats != null) ? stats.split("\r?\n") : new String[0])
			.filter((line) -> line.startsWith("cmdstat_" + command + ":"))
			.flatMap((line) -> Arrays.stream(line.substring(line.indexOf(':') + 1).split(",")))
			.filter((part) -> part.startsWith("calls="))
			.mapToLong((part) -> Long.parseLong(part.substring(6)))
			.findFirst()
			.orElse(0);
	}

	private long serverMillis() {
		Long time = this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands()
			.time(TimeUnit.MILLISECONDS));
		return (time != null) ? time : 0;
	}

}
