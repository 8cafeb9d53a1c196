package io.github.redisqueue.test.batch;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redisqueue.annotation.EnableQueueListeners;
import io.github.redisqueue.annotation.QueueListener;
import io.github.redisqueue.config.DefaultQueueListenerContainerFactory;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.support.JobMetadata;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.WorkerJvm;
import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A worker JVM for the batch fault tests: a plain Spring application with one
 * {@code @QueueListener} method that runs {@link Piece} sub-jobs, records each run's start and end
 * in the {@link RunLog}, and works for the piece's time. Settings are system properties:
 * {@code batch.host}, {@code batch.port} (Redis, 127.0.0.1 in tests), {@code batch.queue},
 * {@code batch.worker-id} (also the worker's name in the run log), {@code batch.concurrency},
 * {@code batch.lease} (ISO duration) and {@value #HANG} (whether the handler of a piece marked
 * {@code hang} blocks for good). It reserves no job beyond its threads (prefetch 0) and prints
 * {@value #STARTED} once its container runs.
 */
public final class BatchWorkerMain {

	/** Printed on standard output once the listener runs. */
	public static final String STARTED = "BATCH WORKER STARTED";

	/** System property: whether pieces marked {@code hang} block their handler for good. */
	public static final String HANG = "batch.hang";

	private BatchWorkerMain() {
	}

	/**
	 * Start a worker JVM; it does not wait for it to be ready ({@link #STARTED}).
	 * @param workerId its worker id, also its name in the run log
	 * @param redis the server
	 * @param queue the queue of the sub-jobs
	 * @param concurrency its handler threads
	 * @param lease the lease of each job
	 * @param hang whether pieces marked {@code hang} block its handler for good
	 * @return the JVM
	 */
	public static WorkerJvm launch(String workerId, RedisEndpoint redis, String queue, int concurrency, Duration lease,
			boolean hang) {
		return WorkerJvm.launch(workerId, BatchWorkerMain.class,
				Map.of("batch.host", redis.host(), "batch.port", String.valueOf(redis.port()), "batch.queue", queue,
						"batch.worker-id", workerId, "batch.concurrency", String.valueOf(concurrency), "batch.lease",
						lease.toString(), HANG, String.valueOf(hang)));
	}

	public static void main(String[] args) throws InterruptedException {
		WorkerJvm.exitWithParent();
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.register(WorkerConfiguration.class, PieceListener.class);
		context.registerShutdownHook();
		context.refresh();
		System.out.println(STARTED + " pid " + ProcessHandle.current().pid());
		System.out.flush();
		new CountDownLatch(1).await();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableQueueListeners
	static class WorkerConfiguration {

		@Bean(destroyMethod = "destroy")
		LettuceConnectionFactory redisConnectionFactory(@Value("${batch.host}") String host,
				@Value("${batch.port}") int port) {
			return TestRedis.connectionFactory(TestRedis.endpoint(host, port, "parent test"));
		}

		@Bean
		StringRedisTemplate stringRedisTemplate(LettuceConnectionFactory connectionFactory) {
			return new StringRedisTemplate(connectionFactory);
		}

		@Bean
		QueueTemplate queueTemplate(LettuceConnectionFactory connectionFactory,
				@Value("${batch.worker-id}") String workerId) {
			return new QueueTemplate(connectionFactory, new JacksonJobSerializer(),
					QueueSettings.builder().workerId(workerId).build());
		}

		@Bean
		DefaultQueueListenerContainerFactory queueListenerContainerFactory(QueueTemplate queueTemplate) {
			DefaultQueueListenerContainerFactory factory = new DefaultQueueListenerContainerFactory(queueTemplate);
			factory.setContainerOptions(ContainerOptions.builder()
				.pollInterval(Duration.ofMillis(200))
				.shutdownTimeout(Duration.ofSeconds(5))
				.build());
			return factory;
		}

	}

	/** Records each run before and after its body, which only takes time (or hangs). */
	static class PieceListener {

		private final StringRedisTemplate redis;

		private final String worker;

		private final boolean hang;

		PieceListener(StringRedisTemplate redis, @Value("${batch.worker-id}") String worker,
				@Value("${" + HANG + ":false}") boolean hang) {
			this.redis = redis;
			this.worker = worker;
			this.hang = hang;
		}

		@QueueListener(id = "pieces", queue = "${batch.queue}", concurrency = "${batch.concurrency}", prefetch = "0",
				lease = "${batch.lease}")
		void handle(Piece piece, JobMetadata metadata) throws InterruptedException {
			RunLog.started(this.redis, piece, metadata.id(), metadata.attempt(), this.worker);
			if (this.hang && piece.hang()) {
				new CountDownLatch(1).await();
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(piece.workMillis()));
			RunLog.ended(this.redis, piece, metadata.id(), metadata.attempt(), this.worker);
		}

	}

}
