package io.github.redisqueue.core;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisHashCommands;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reserve whose payloads over 4 KB cannot be read after the call (the read fails, or finds
 * nothing, as a read from a replica behind its master would) gives those jobs back unstarted:
 * nothing is counted against them, they are ready again at their place, and the jobs whose
 * payloads came in the reply are handed out. On a partitioned queue the partitions' payloads are
 * read together, one read per partition: one that fails gives back that partition's jobs only.
 */
// a server of its own: its connection factory fails the payload reads on demand
@Tag("single-node")
class ApartPayloadReadFailureIntegrationTests {

	private static final String QUEUE = "unread";

	private static final Duration LEASE = Duration.ofMinutes(10);

	@Test
	void jobsWhosePayloadCannotBeReadAreGivenBackWithNothingCounted() {
		onOwnServer((factory) -> {
			QueueTemplate queues = new QueueTemplate(factory);
			String small = queues.enqueue(QUEUE, "small").id();
			String large = queues.enqueue(QUEUE, "L".repeat(6_000)).id();
			String larger = queues.enqueue(QUEUE, "M".repeat(9_000)).id();

			factory.failing = true;
			Reservation first = queues.reserveBatch(QUEUE, 3, LEASE, "w");

			assertThat(first.jobs()).extracting(ReservedJob::id).containsExactly(small);
			assertThat(first.cutShort()).as("jobs left out: ask again").isTrue();
			QueueAdmin admin = new QueueAdmin(queues);
			assertThat(admin.counts(QUEUE).ready()).isEqualTo(2);
			assertThat(admin.counts(QUEUE).inFlight()).isEqualTo(1);

			factory.failing = false;
			List<ReservedJob> again = queues.reserve(QUEUE, 3, LEASE);

			assertThat(again).extracting(ReservedJob::id).containsExactly(large, larger);
			assertThat(again).extracting(ReservedJob::attempt).containsExactly(1, 1);
			assertThat(again.get(1).payloadAsString()).isEqualTo('"' + "M".repeat(9_000) + '"');
			StringRedisTemplate redis = new StringRedisTemplate(factory);
			JobRecords records = new JobRecords(redis, queues, QUEUE);
			assertThat(records.fields(large)).doesNotContainKey("lost");
			assertThat(records.fields(larger)).doesNotContainKey("lost");
		});
	}

	@Test
	void aPartitionWhosePayloadsCannotBeReadGivesThemBackWhileTheOthersHandTheirsOut() {
		onOwnServer((factory) -> {
			QueueTemplate queues = new QueueTemplate(factory, new JacksonJobSerializer(),
					QueueSettings.builder().partitions(QUEUE, 3).build());
			// one job on each partition
			List<String> ids = queues.enqueueAll(QUEUE, List.of("A".repeat(6_000), "B".repeat(7_000), "C".repeat(8_000)),
					JobOptions.defaults()).stream().map(EnqueueResult::id).toList();
			assertThat(ids.stream().map((id) -> queues.context().partitioning().keysForJob(QUEUE, id).name()))
				.doesNotHaveDuplicates();
			StringRedisTemplate redis = new StringRedisTemplate(factory);
			redis.opsForValue().set("not-a-hash", "x");
			// the read of the second job's partition answers an error
			factory.failingHash = queues.context().partitioning().keysForJob(QUEUE, ids.get(1)).jobs();

			Reservation first = queues.reserveBatch(QUEUE, 3, LEASE, "w");

			assertThat(first.jobs()).extracting(ReservedJob::id).containsExactlyInAnyOrder(ids.get(0), ids.get(2));
			assertThat(first.jobs()).extracting(ReservedJob::payloadAsString)
				.containsExactlyInAnyOrder('"' + "A".repeat(6_000) + '"', '"' + "C".repeat(8_000) + '"');
			assertThat(first.cutShort()).as("a job left out: ask again").isTrue();
			QueueAdmin admin = new QueueAdmin(queues);
			assertThat(admin.counts(QUEUE).ready()).isEqualTo(1);
			assertThat(admin.counts(QUEUE).inFlight()).isEqualTo(2);

			factory.failingHash = null;
			List<ReservedJob> again = queues.reserve(QUEUE, 3, LEASE);

			assertThat(again).extracting(ReservedJob::id).containsExactly(ids.get(1));
			assertThat(again.get(0).attempt()).isEqualTo(1);
			assertThat(again.get(0).payloadAsString()).isEqualTo('"' + "B".repeat(7_000) + '"');
			// nothing counted against it: its first attempt, no error
			assertThat(new QueueAdmin(queues).job(QUEUE, ids.get(1))).hasValueSatisfying((info) -> {
				assertThat(info.attempts()).isZero();
				assertThat(info.lastError()).isNull();
		});
		});
	}

	/** Runs {@code test} with a factory of {@link FailingReads} on a server of its own. */
	private static void onOwnServer(Consumer<FailingReads> test) {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			FailingReads factory = new FailingReads(server.endpoint().host(), server.endpoint().port());
			factory.afterPropertiesSet();
			factory.start();
			try {
				test.accept(factory);
			}
			finally {
				factory.destroy();
			}
		}
	}

	/**
	 * A factory whose connections fail {@code HMGET} while {@link #failing} is set, and whose native
	 * commands read the string key {@code not-a-hash} instead of {@link #failingHash} (an error reply).
	 */
	static final class FailingReads extends LettuceConnectionFactory {

		volatile boolean failing;

		volatile byte @Nullable [] failingHash;

		FailingReads(String host, int port) {
			super(new RedisStandaloneConfiguration(host, port));
		}

		@Override
		public RedisConnection getConnection() {
			RedisConnection connection = super.getConnection();
			return (RedisConnection) Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { RedisConnection.class }, (proxy, method, args) -> {
						Object result = call(method, connection, args);
						byte[] failingHash = this.failingHash;
						if (method.getName().equals("getNativeConnection") && failingHash != null) {
							return nativeFailing(result, failingHash);
						}
						if (method.getName().equals("hashCommands") && this.failing) {
							RedisHashCommands hashes = (RedisHashCommands) result;
							return Proxy.newProxyInstance(getClass().getClassLoader(),
									new Class<?>[] { RedisHashCommands.class }, (p, m, a) -> {
										if (m.getName().equals("hMGet")) {
											throw new RedisSystemException("HMGET failed on purpose", null);
										}
										return call(m, hashes, a);
									});
						}
						return result;
					});
		}

		private Object nativeFailing(Object commands, byte[] failingHash) {
			return Proxy.newProxyInstance(getClass().getClassLoader(),
					ClassUtils.getAllInterfacesForClass(commands.getClass()), (proxy, method, args) -> {
						if (method.getName().equals("hmget") && args.length == 2 && args[0] instanceof byte[] key
								&& Arrays.equals(key, failingHash)) {
							return call(method, commands,
									new Object[] { "not-a-hash".getBytes(StandardCharsets.UTF_8), args[1] });
						}
						return call(method, commands, args);
					});
		}

		private static Object call(Method method, Object target, Object[] args) throws Throwable {
			try {
				return method.invoke(target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
		}

	}

}
