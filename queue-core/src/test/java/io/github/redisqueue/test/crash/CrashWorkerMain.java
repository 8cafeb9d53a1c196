package io.github.redisqueue.test.crash;

import java.nio.file.Path;
import java.time.Duration;
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

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A crash-trial worker: a plain Spring application in a JVM of its own with one
 * {@code @QueueListener} method, as an application would run it. Its settings come from system
 * properties: {@code crash.host}, {@code crash.port}, {@code crash.queue}, {@code crash.worker-id}
 * (the same across restarts, as a pod's name), {@code crash.journal} (the file of handler runs),
 * {@code crash.concurrency}, {@code crash.prefetch}, {@code crash.lease} (ISO duration),
 * {@code crash.fsync}, {@code crash.parent-pid} (the worker halts when that process ends). It prints {@value #STARTED} once its listener container runs (after it took
 * back the leases its identity still held); SIGTERM closes the context, which stops the container
 * gracefully.
 */
public final class CrashWorkerMain {

	/** Printed on standard output once the listener runs. */
	public static final String STARTED = "CRASH WORKER STARTED";

	/** The listener container's id: the lease identity is {@code <worker id>#crash}. */
	public static final String CONTAINER_ID = "crash";

	private CrashWorkerMain() {
	}

	public static void main(String[] args) throws InterruptedException {
		// never outlive the trial that started this worker, however it ended
		String parent = System.getProperty("crash.parent-pid");
		if (parent != null) {
			ProcessHandle.of(Long.parseLong(parent))
				.ifPresentOrElse((handle) -> handle.onExit().thenRun(() -> Runtime.getRuntime().halt(3)),
						() -> Runtime.getRuntime().halt(3));
		}
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.register(WorkerConfiguration.class, CrashListener.class);
		context.registerShutdownHook();
		context.refresh();
		System.out.println(STARTED + " pid " + ProcessHandle.current().pid());
		System.out.flush();
		// the container's threads keep the JVM alive; SIGTERM runs the context's shutdown hook
		new CountDownLatch(1).await();
	}

	static String property(String name) {
		String value = System.getProperty(name);
		if (value == null || value.isBlank()) {
			throw new IllegalStateException("System property " + name + " is not set");
		}
		return value;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableQueueListeners
	static class WorkerConfiguration {

		@Bean(destroyMethod = "destroy")
		LettuceConnectionFactory redisConnectionFactory() {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(property("crash.host"), Integer.parseInt(property("crash.port"))));
			factory.afterPropertiesSet();
			factory.start();
			return factory;
		}

		@Bean
		QueueTemplate queueTemplate(LettuceConnectionFactory connectionFactory) {
			return new QueueTemplate(connectionFactory, new JacksonJobSerializer(),
					QueueSettings.builder().workerId(property("crash.worker-id")).build());
		}

		@Bean
		DefaultQueueListenerContainerFactory queueListenerContainerFactory(QueueTemplate queueTemplate) {
			DefaultQueueListenerContainerFactory factory = new DefaultQueueListenerContainerFactory(queueTemplate);
			factory.setContainerOptions(ContainerOptions.builder()
				.pollInterval(Duration.ofMillis(200))
				.shutdownTimeout(Duration.ofSeconds(10))
				.backOff(Duration.ofMillis(100), 2.0, Duration.ofSeconds(1))
				.build());
			return factory;
		}

		@Bean(destroyMethod = "close")
		Journal journal() {
			return new Journal(Path.of(property("crash.journal")), Boolean.getBoolean("crash.fsync"));
		}

	}

	/** Records each run before and after its body, which only takes time. */
	static class CrashListener {

		private final Journal journal;

		CrashListener(Journal journal) {
			this.journal = journal;
		}

		@QueueListener(id = CONTAINER_ID, queue = "${crash.queue}", concurrency = "${crash.concurrency}",
				prefetch = "${crash.prefetch}", lease = "${crash.lease}")
		void handle(CrashJob job, JobMetadata metadata) {
			this.journal.started(metadata.id(), job.key(), metadata.attempt());
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(job.workMillis()));
			this.journal.done(metadata.id(), job.key(), metadata.attempt());
		}

	}

}
