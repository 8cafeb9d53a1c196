package io.github.redisqueue.core;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;

import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisHashCommands;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reserve whose payloads over 4 KB cannot be read after the call (the read fails, or finds
 * nothing, as a read from a replica behind its master would) gives those jobs back unstarted:
 * nothing is counted against them, they are ready again at their place, and the jobs whose
 * payloads came in the reply are handed out.
 */
// a server of its own: its connection factory fails the payload reads on demand
@Tag("single-node")
class ApartPayloadReadFailureIntegrationTests {

	private static final String QUEUE = "unread";

	private static final Duration LEASE = Duration.ofMinutes(10);

	@Test
	void jobsWhosePayloadCannotBeReadAreGivenBackWithNothingCounted() {
		try (RedisServerProcess server = TestRedis.startPrivate()) {
			FailingReads factory = new FailingReads(server.endpoint().host(), server.endpoint().port());
			factory.afterPropertiesSet();
			factory.start();
			try {
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
			}
			finally {
				factory.destroy();
			}
		}
	}

	/** A factory whose connections fail {@code HMGET} while {@link #failing} is set. */
	static final class FailingReads extends LettuceConnectionFactory {

		volatile boolean failing;

		FailingReads(String host, int port) {
			super(new RedisStandaloneConfiguration(host, port));
		}

		@Override
		public RedisConnection getConnection() {
			RedisConnection connection = super.getConnection();
			return (RedisConnection) Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { RedisConnection.class }, (proxy, method, args) -> {
						Object result = call(method, connection, args);
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
