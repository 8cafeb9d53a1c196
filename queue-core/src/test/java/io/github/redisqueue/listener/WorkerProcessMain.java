package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A worker in a JVM of its own, for the crash and shutdown tests. Arguments: host, port, queue,
 * mode ({@code work}: each job takes 300 ms; {@code hang}: each job runs until interrupted).
 * Every job it starts is added to the set {@code <queue>:started} and every job it finishes to
 * {@code <queue>:finished}. SIGTERM stops the container gracefully through a shutdown hook.
 */
public final class WorkerProcessMain {

	private WorkerProcessMain() {
	}

	public static void main(String[] args) throws Exception {
		RedisEndpoint endpoint = TestRedis.endpoint(args[0], Integer.parseInt(args[1]), "parent test");
		String queue = args[2];
		boolean hang = "hang".equals(args[3]);
		LettuceConnectionFactory factory = TestRedis.connectionFactory(endpoint);
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		QueueTemplate queues = new QueueTemplate(factory);
		QueueListenerContainer container = new QueueListenerContainer("worker", queue, queues, (job, ack) -> {
			redis.opsForSet().add(queue + ":started", job.id());
			if (hang) {
				new CountDownLatch(1).await();
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
			redis.opsForSet().add(queue + ":finished", job.id());
		}, ContainerOptions.builder()
			.concurrency(2)
			.lease(Duration.ofSeconds(2))
			.pollInterval(Duration.ofMillis(200))
			.shutdownTimeout(Duration.ofSeconds(hang ? 1 : 10))
			.build(), null, null);
		CountDownLatch stopped = new CountDownLatch(1);
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			container.stop();
			factory.destroy();
			stopped.countDown();
		}));
		container.start();
		System.out.println("WORKER STARTED");
		System.out.flush();
		stopped.await();
	}

}
