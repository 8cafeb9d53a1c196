package io.github.redisqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.JobInfo;
import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.testing.redis.RedisServerProcess;
import io.github.redisqueue.testing.redis.TestRedis;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis away for longer than a lease (SIGKILL, then a restart on its append-only file): the
 * lease of a worker that is alive does not run out because of it, so its job is not handed to
 * another consumer and its handler runs once; the job of a worker that died meanwhile is still
 * taken back once Redis is back (its lease shifted by the outage).
 */
// on one server only: it kills and restarts a server of its own
@Tag("single-node")
class RedisOutageLeaseIntegrationTests {

	private static final String QUEUE = "outage";

	private static final Duration LEASE = Duration.ofSeconds(2);

	@Test
	void aLiveWorkerKeepsItsJobAcrossAnOutageLongerThanItsLeaseAndADeadOnesJobIsTakenBack() throws Exception {
		try (RedisServerProcess server = TestRedis.startPrivate("--appendonly", "yes", "--appendfsync", "always")) {
			LettuceConnectionFactory liveFactory = TestRedis.connectionFactory(server.endpoint());
			LettuceConnectionFactory deadFactory = TestRedis.connectionFactory(server.endpoint());
			// another consumer, whose client tries to reconnect every 50 ms: it is back before the
			// live worker's client (Lettuce's default back-off: 1, 2, 4, ... ms between tries), which
			// is when leases that ran out during the outage used to be taken back
			ClientResources fast = DefaultClientResources.builder()
				.reconnectDelay(Delay.constant(Duration.ofMillis(50)))
				.build();
			LettuceConnectionFactory otherFactory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(server.host(), server.port()),
					LettuceClientConfiguration.builder().clientResources(fast).build());
			otherFactory.afterPropertiesSet();
			otherFactory.start();
			QueueListenerContainer container = null;
			try {
				QueueTemplate live = template(liveFactory, "live-worker");
				QueueTemplate dead = template(deadFactory, "dead-worker");
				QueueTemplate other = template(otherFactory, "other-worker");
				QueueAdmin admin = new QueueAdmin(other);

				// the worker that dies: it holds a job and never extends its lease
				String deadJob = live.enqueue(QUEUE, "dead's").id();
				ReservedJob held = dead.reserve(QUEUE, 1, LEASE).get(0);
				assertThat(held.id()).isEqualTo(deadJob);

				// the live worker: a container whose handler runs through the outage
				Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
				CountDownLatch running = new CountDownLatch(1);
				CountDownLatch finish = new CountDownLatch(1);
				container = new QueueListenerContainer(QUEUE, QUEUE, live, (job, ack) -> {
					runs.computeIfAbsent(job.id(), (id) -> new AtomicInteger()).incrementAndGet();
					running.countDown();
					finish.await(60, TimeUnit.SECONDS);
				}, ContainerOptions.builder().lease(LEASE).pollInterval(Duration.ofMillis(200)).prefetch(0).build(),
						null, null);
				container.start();
				String liveJob = live.enqueue(QUEUE, "live's").id();
				assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
				assertThat(runs).containsOnlyKeys(liveJob);
				// the other consumer is connected, and finds nothing to take yet
				assertThat(other.reserve(QUEUE, 10, Duration.ofMinutes(1))).isEmpty();

				long pid = server.pid();
				server.kill();
				long killedAt = System.currentTimeMillis();
				assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
				// every lease ran out while Redis was down (Redis and this JVM share the machine's clock):
				// none was extended past the kill, and each was at most a lease long
				await().atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(50))
					.until(() -> System.currentTimeMillis() > killedAt + LEASE.toMillis() + 500);
				server.restart();

				// the other consumer polls until the dead worker's job comes back to it
				Set<String> takenByOther = ConcurrentHashMap.newKeySet();
				await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).ignoreExceptions().until(() -> {
					for (ReservedJob job : other.reserve(QUEUE, 10, Duration.ofMinutes(1))) {
						takenByOther.add(job.id());
						assertThat(other.complete(QUEUE, job.ref())).isEqualTo(AckResult.OK);
					}
					return takenByOther.contains(deadJob);
				});
				assertThat(takenByOther).as("jobs handed to another consumer after the restart").containsExactly(deadJob);
				JobInfo liveInfo = admin.job(QUEUE, liveJob).orElseThrow();
				assertThat(liveInfo.state()).isEqualTo(JobState.ACTIVE);
				assertThat(liveInfo.worker()).startsWith("live-worker#");
				assertThat(liveInfo.leaseUntil()).isAfter(Instant.ofEpochMilli(killedAt + LEASE.toMillis()));

				finish.countDown();
				await().atMost(Duration.ofSeconds(30))
					.ignoreExceptions()
					.until(() -> admin.counts(QUEUE).total("completed") == 2);
				assertThat(runs).containsOnlyKeys(liveJob);
				assertThat(runs.get(liveJob)).hasValue(1);
				assertThat(admin.counts(QUEUE).pending()).isZero();
				assertThat(admin.counts(QUEUE).total("reaped")).as("leases taken back").isEqualTo(1);
				// the dead worker's job ran elsewhere and is gone (completed jobs are not retained)
				assertThat(dead.complete(QUEUE, held.ref())).isEqualTo(AckResult.NOT_FOUND);
			}
			finally {
				if (container != null) {
					container.stop();
				}
				liveFactory.destroy();
				deadFactory.destroy();
				otherFactory.destroy();
				fast.shutdown();
			}
		}
	}

	private static QueueTemplate template(LettuceConnectionFactory factory, String workerId) {
		return new QueueTemplate(factory, new JacksonJobSerializer(), QueueSettings.builder().workerId(workerId).build());
	}

}
