package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.WorkerJvm;
import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A worker JVM with a stable worker id, one handler thread and a prefetch of one (a second job
 * is reserved ahead while one runs), for the tests of jobs that kill their worker. Its handler
 * pushes the payload of each job it starts to the list {@code <queue>:runs}, then by payload:
 * {@value #POISON} halts the JVM at once (exit status {@value #HALTED}), {@value #HOLD} blocks
 * until the JVM is killed, anything else returns. Completed jobs keep their records for an hour.
 * Settings are system properties: {@code poison.host}, {@code poison.port}, {@code poison.queue},
 * {@code poison.worker-id}. It prints {@value #STARTED} once its container runs.
 */
public final class PoisonWorkerMain {

	/** The payload of a job that halts the JVM when it starts. */
	public static final String POISON = "poison";

	/** The payload of a job that runs until the JVM is killed. */
	public static final String HOLD = "hold";

	/** The exit status of a JVM a poison job halted. */
	public static final int HALTED = 71;

	/** Printed on standard output once the container runs. */
	public static final String STARTED = "POISON WORKER STARTED";

	private PoisonWorkerMain() {
	}

	/**
	 * Start a worker JVM; it does not wait for it to be ready.
	 * @param redis the server
	 * @param queue the queue it consumes
	 * @param workerId its worker id, the same across restarts
	 * @return the JVM
	 */
	public static WorkerJvm launch(RedisEndpoint redis, String queue, String workerId) {
		return WorkerJvm.launch(workerId, PoisonWorkerMain.class, Map.of("poison.host", redis.host(), "poison.port",
				String.valueOf(redis.port()), "poison.queue", queue, "poison.worker-id", workerId));
	}

	public static void main(String[] args) throws InterruptedException {
		WorkerJvm.exitWithParent();
		RedisEndpoint endpoint = TestRedis.endpoint(System.getProperty("poison.host"),
				Integer.parseInt(System.getProperty("poison.port")), "parent test");
		String queue = System.getProperty("poison.queue");
		LettuceConnectionFactory factory = TestRedis.connectionFactory(endpoint);
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		QueueTemplate queues = new QueueTemplate(factory, new JacksonJobSerializer(),
				QueueSettings.builder()
					.workerId(System.getProperty("poison.worker-id"))
					.completedRetention(Duration.ofHours(1))
					.build());
		QueueListenerContainer container = new QueueListenerContainer("poison", queue, queues, (job, ack) -> {
			String payload = queues.readPayload(job, String.class);
			redis.opsForList().rightPush(queue + ":runs", payload);
			if (POISON.equals(payload)) {
				Runtime.getRuntime().halt(HALTED);
			}
			if (HOLD.equals(payload)) {
				new CountDownLatch(1).await();
			}
		}, ContainerOptions.builder()
			.concurrency(1)
			.prefetch(1)
			// long enough that only the restart takes the dead worker's leases back
			.lease(Duration.ofMinutes(5))
			.pollInterval(Duration.ofMillis(200))
			.build(), null, null);
		container.start();
		System.out.println(STARTED + " pid " + ProcessHandle.current().pid());
		System.out.flush();
		new CountDownLatch(1).await();
	}

}
