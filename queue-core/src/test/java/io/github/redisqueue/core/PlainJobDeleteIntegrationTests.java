package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deleting a plain ready job (B08): it leaves the queue at once for every reader (counts, pages,
 * the reserve, a search by id), and the delete costs a search of the plain list, not a walk over
 * it: under 20 ms of script (Redis's SLOWLOG) with 10 million jobs waiting.
 */
class PlainJobDeleteIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final String QUEUE = "plain-delete";

	@Test
	void deletedPlainJobsLeaveCountsPagesAndTheReserveAtOnce() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> plain = ids(queues.enqueueAll(QUEUE, IntStream.rangeClosed(1, 10).boxed().toList(),
				JobOptions.defaults()));
		String urgent = queues.enqueue(QUEUE, "urgent", JobOptions.builder().priority(2).build()).id();
		List<String> deleted = List.of(plain.get(0), plain.get(1), plain.get(4), plain.get(9));

		for (String id : deleted) {
			assertThat(admin.deleteJob(QUEUE, id)).isTrue();
			assertThat(admin.deleteJob(QUEUE, id)).isFalse();
			assertThat(admin.job(QUEUE, id)).isEmpty();
		}

		List<String> left = new ArrayList<>(plain);
		left.removeAll(deleted);
		assertThat(admin.counts(QUEUE).ready()).isEqualTo(1 + 6);
		assertThat(admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 0, 20)).extracting(JobInfo::id)
			.startsWith(urgent)
			.doesNotContainAnyElementsOf(deleted)
			.containsAll(left);
		List<String> order = new ArrayList<>();
		order.add(urgent);
		order.addAll(left);
		assertThat(queues.reserve(QUEUE, 2, LEASE)).extracting(ReservedJob::id).containsExactlyElementsOf(order.subList(0, 2));
		assertThat(admin.counts(QUEUE).ready()).isEqualTo(5);
		assertThat(queues.reserve(QUEUE, 20, LEASE)).extracting(ReservedJob::id).containsExactlyElementsOf(order.subList(2, 7));
		assertThat(admin.counts(QUEUE).ready()).isZero();

		String later = queues.enqueue(QUEUE, "later").id();
		assertThat(admin.counts(QUEUE).ready()).isEqualTo(1);
		assertThat(queues.reserve(QUEUE, 5, LEASE)).extracting(ReservedJob::id).containsExactly(later);
	}

	@Test
	void aQueueWhoseEveryPlainJobWasDeletedHandsOutNothingAndCountsNothing() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = ids(queues.enqueueAll(QUEUE, List.of("a", "b", "c"), JobOptions.defaults()));
		ids.forEach((id) -> assertThat(admin.deleteJob(QUEUE, id)).isTrue());

		assertThat(admin.counts(QUEUE).ready()).isZero();
		assertThat(admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 0, 10)).isEmpty();
		assertThat(queues.reserve(QUEUE, 10, LEASE)).isEmpty();
		assertThat(this.redis.hasKey(queues.keys(QUEUE).key("ready:plain"))).isFalse();
		assertThat(admin.counts(QUEUE).ready()).isZero();
	}

	@Test
	void aReserveReachesTheJobsBehindMoreTombstonesThanItAsksFor() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = ids(queues.enqueueAll(QUEUE, IntStream.range(0, 60).boxed().toList(), JobOptions.defaults()));
		ids.subList(0, 50).forEach((id) -> assertThat(admin.deleteJob(QUEUE, id)).isTrue());

		assertThat(admin.counts(QUEUE).ready()).isEqualTo(10);
		assertThat(queues.reserve(QUEUE, 3, LEASE)).extracting(ReservedJob::id).containsExactlyElementsOf(ids.subList(50, 53));
		assertThat(admin.counts(QUEUE).ready()).isEqualTo(7);
	}

	// a reserve drops at most 1,000 tombstones: one that stops there, jobs still ready behind them,
	// says it was cut short, so that a fetch loop reserves again at once instead of waiting
	@Test
	void aReserveStoppedByTheTombstonesItMayDropSaysItWasCutShort() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = ids(
				queues.enqueueAll(QUEUE, IntStream.range(0, 1_003).boxed().toList(), JobOptions.defaults()));
		ids.subList(0, 1_001).forEach((id) -> assertThat(admin.deleteJob(QUEUE, id)).isTrue());

		Reservation first = queues.reserveBatch(QUEUE, 1, LEASE, "w");
		assertThat(first.jobs()).isEmpty();
		assertThat(first.cutShort()).as("1,000 tombstones dropped, 2 jobs ready behind one more").isTrue();
		Reservation second = queues.reserveBatch(QUEUE, 1, LEASE, "w");
		assertThat(second.jobs()).extracting(ReservedJob::id).containsExactly(ids.get(1_001));
		assertThat(admin.counts(QUEUE).ready()).isEqualTo(1);
	}

	@Test
	void deletingAPartitionedQueuesPlainJobKeepsItsCountsExact() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new io.github.redisqueue.support.converter.JacksonJobSerializer(),
				QueueSettings.builder().partitions(QUEUE, 4).build());
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = ids(queues.enqueueAll(QUEUE, IntStream.range(0, 20).boxed().toList(), JobOptions.defaults()));
		ids.subList(0, 8).forEach((id) -> assertThat(admin.deleteJob(QUEUE, id)).isTrue());

		assertThat(admin.counts(QUEUE).ready()).isEqualTo(12);
		assertThat(admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 0, 20)).extracting(JobInfo::id)
			.containsExactlyInAnyOrderElementsOf(ids.subList(8, 20));
	}

	/**
	 * 10 million plain jobs of a few bytes each (about 300 MB in Redis, on a server of its own): the
	 * delete of one in the middle of the list takes under 20 ms of script, by Redis's own measure.
	 */
	@Test
	@Tag("single-node")
	void deletingAPlainJobAmongTenMillionIsASearchNotAWalk() throws Exception {
		int total = 10_000_000;
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.endpoint());
			try {
				StringRedisTemplate redis = new StringRedisTemplate(factory);
				QueueTemplate queues = new QueueTemplate(factory);
				QueueAdmin admin = new QueueAdmin(queues);
				String first = queues.enqueue(QUEUE, "x").id();
				assertThat(first).isEqualTo("1");
				byte[] plainKey = queues.keys(QUEUE).key("ready:plain").getBytes(StandardCharsets.UTF_8);
				// copies of job 1's element with the ids 2 .. total, a million per call
				byte[] fill = ("local e = redis.call('LINDEX', KEYS[1], 0) "
						+ "local rest = string.sub(e, (string.find(e, ':', 1, true))) "
						+ "local from, to = tonumber(ARGV[1]), tonumber(ARGV[2]) "
						+ "local chunk = {} "
						+ "for i = from, to do chunk[#chunk + 1] = i .. rest "
						+ "if #chunk == 1000 then redis.call('RPUSH', KEYS[1], unpack(chunk)) chunk = {} end end "
						+ "if #chunk > 0 then redis.call('RPUSH', KEYS[1], unpack(chunk)) end "
						+ "return redis.call('LLEN', KEYS[1])")
					.getBytes(StandardCharsets.UTF_8);
				for (int from = 2; from <= total; from += 1_000_000) {
					byte[] a = Integer.toString(from).getBytes(StandardCharsets.UTF_8);
					byte[] b = Integer.toString(Math.min(total, from + 999_999)).getBytes(StandardCharsets.UTF_8);
					redis.execute((RedisCallback<Object>) (c) -> c.scriptingCommands()
						.eval(fill, ReturnType.INTEGER, 1, plainKey, a, b));
				}
				assertThat(admin.counts(QUEUE).ready()).isEqualTo(total);
				String middle = Integer.toString(total / 2 + 1);
				assertThat(admin.job(QUEUE, middle)).isPresent();
				command(redis, "CONFIG", "SET", "slowlog-log-slower-than", "0");
				command(redis, "CONFIG", "SET", "slowlog-max-len", "1000");
				command(redis, "SLOWLOG", "RESET");

				assertThat(admin.deleteJob(QUEUE, middle)).isTrue();

				long script = longestScriptMicros(redis);
				command(redis, "CONFIG", "SET", "slowlog-log-slower-than", "10000");
				assertThat(script).as("longest script of the delete, µs").isPositive().isLessThan(20_000);
				assertThat(admin.job(QUEUE, middle)).isEmpty();
				assertThat(admin.counts(QUEUE).ready()).isEqualTo(total - 1);
				assertThat(admin.jobs(QUEUE, JobState.READY, JobOrder.OLDEST_FIRST, 0, 2)).extracting(JobInfo::id)
					.containsExactly("1", "2");
			}
			finally {
				factory.destroy();
			}
		}
	}

	private static List<String> ids(List<EnqueueResult> results) {
		return new ArrayList<>(results.stream().map(EnqueueResult::id).toList());
	}

	private static void command(StringRedisTemplate redis, String command, String... args) {
		byte[][] bytes = java.util.Arrays.stream(args).map((arg) -> arg.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
		redis.execute((RedisCallback<Object>) (connection) -> connection.execute(command, bytes));
	}

	/** The longest script call (EVALSHA, EVAL or FCALL) of the slowlog, in µs. */
	@SuppressWarnings("unchecked")
	private static long longestScriptMicros(StringRedisTemplate redis) {
		Object reply = redis.execute((RedisCallback<Object>) (connection) -> {
			try {
				return ((RedisClusterAsyncCommands<byte[], byte[]>) connection.getNativeConnection()).slowlogGet(-1)
					.get(10, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
		long longest = 0;
		for (Object entry : (List<Object>) reply) {
			if (entry instanceof List<?> fields && fields.size() > 3 && fields.get(3) instanceof List<?> argv
					&& !argv.isEmpty() && fields.get(2) instanceof Long micros) {
				Object name = argv.get(0);
				String text = (name instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(name);
				String command = text.toLowerCase(java.util.Locale.ROOT);
				if (command.startsWith("eval") || command.startsWith("fcall")) {
					longest = Math.max(longest, micros);
				}
			}
		}
		return longest;
	}

}
