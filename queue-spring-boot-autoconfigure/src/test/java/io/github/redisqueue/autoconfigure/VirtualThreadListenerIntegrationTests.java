package io.github.redisqueue.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redisqueue.annotation.QueueListener;
import io.github.redisqueue.core.QueueAdminOperations;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.testing.redis.RedisEndpoint;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The thread a {@code @QueueListener} runs on, on a real Redis. With
 * {@code spring.threads.virtual.enabled=true} on Java 21 or later the handler runs on a virtual
 * thread of the auto-configured executor. Before Java 21 Boot's virtual threading is never active
 * ({@link Threading#VIRTUAL} checks the Java version), so the same property leaves the listener on
 * the container's platform threads, and the application starts and handles jobs as without it.
 * Compiled for Java 17: {@code Thread.isVirtual()} is called reflectively.
 */
class VirtualThreadListenerIntegrationTests {

	private static final boolean JAVA_21_OR_LATER = Runtime.version().feature() >= 21;

	private final RedisEndpoint redis = TestRedis.shared();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, QueueAutoConfiguration.class,
				QueueListenerAutoConfiguration.class))
		.withUserConfiguration(ThreadRecorder.class)
		.withPropertyValues(TestRedis.springProperties(this.redis))
		.withPropertyValues("queue.listener.poll-interval=200ms");

	@BeforeEach
	void flush() {
		TestRedis.flushAll(this.redis);
	}

	@Test
	void listenerRunsOnVirtualThreadWhenVirtualThreadsAreEnabledOnJava21OrLater() {
		this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
			assertThat(Threading.VIRTUAL.isActive(context.getEnvironment())).isEqualTo(JAVA_21_OR_LATER);
			HandlerThread thread = handleOneJob(context);
			if (JAVA_21_OR_LATER) {
				assertThat(thread.virtual()).as("virtual thread, got %s", thread).isTrue();
			}
			else {
				// creating a virtual-thread executor here would have failed the startup
				assertThat(thread.virtual()).as("platform thread before Java 21, got %s", thread).isFalse();
			}
		});
	}

	@Test
	void listenerRunsOnPlatformThreadWithoutVirtualThreads() {
		this.contextRunner.run((context) -> {
			assertThat(Threading.VIRTUAL.isActive(context.getEnvironment())).isFalse();
			HandlerThread thread = handleOneJob(context);
			assertThat(thread.virtual()).as("platform thread, got %s", thread).isFalse();
		});
	}

	@Test
	void listenerRunsOnPlatformThreadWhenVirtualThreadsAreDisabled() {
		this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=false").run((context) -> {
			HandlerThread thread = handleOneJob(context);
			assertThat(thread.virtual()).as("platform thread, got %s", thread).isFalse();
		});
	}

	private static HandlerThread handleOneJob(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		QueueTemplate queues = context.getBean(QueueTemplate.class);
		QueueAdminOperations admin = context.getBean(QueueAdminOperations.class);
		queues.enqueue("threads", "which thread?");
		ThreadRecorder recorder = context.getBean(ThreadRecorder.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> recorder.thread.get() != null);
		await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("threads").total("completed") == 1);
		return recorder.thread.get();
	}

	/** Name of a handler's thread and whether it is virtual. */
	record HandlerThread(String name, boolean virtual) {

		static HandlerThread current() {
			Thread thread = Thread.currentThread();
			return new HandlerThread(thread.getName(), isVirtual(thread));
		}

		private static boolean isVirtual(Thread thread) {
			if (!JAVA_21_OR_LATER) {
				return false; // no virtual threads before Java 21
			}
			try {
				return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
			}
			catch (ReflectiveOperationException ex) {
				throw new IllegalStateException("Thread.isVirtual() not callable on Java " + Runtime.version(), ex);
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ThreadRecorder {

		final AtomicReference<HandlerThread> thread = new AtomicReference<>();

		@QueueListener(queue = "threads", id = "thread-recorder")
		void handle(String payload) {
			this.thread.set(HandlerThread.current());
		}

	}

}
