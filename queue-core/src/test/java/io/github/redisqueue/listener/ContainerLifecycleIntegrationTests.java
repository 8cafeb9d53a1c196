package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * What a container owns: a checked queue name, and threads named after it that end when it
 * stops.
 */
class ContainerLifecycleIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void invalidQueueNameIsRefusedWithTheRule() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);

		assertThatIllegalArgumentException()
			.isThrownBy(() -> new QueueListenerContainer("bad", "a:b", queues, (job, ack) -> {
			}, ContainerOptions.defaults(), null, null))
			.withMessageContaining("Queue name 'a:b' is invalid")
			.withMessageContaining("1 to 100 characters");
	}

	@Test
	void threadsAreNamedAfterTheContainerAndEndWhenItStops() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		AtomicReference<String> handlerThread = new AtomicReference<>();
		QueueListenerContainer container = new QueueListenerContainer("named", "named", queues,
				(job, ack) -> handlerThread.set(Thread.currentThread().getName()),
				ListenerTestSupport.fast(ContainerOptions.defaults()), null, null);
		container.start();
		try {
			queues.enqueue("named", "x");
			await().atMost(Duration.ofSeconds(10)).until(() -> handlerThread.get() != null);

			assertThat(handlerThread.get()).isEqualTo("queue-named-1");
			assertThat(liveThreads("queue-named-")).contains("queue-named-fetch-1", "queue-named-lease-1");
		}
		finally {
			container.stop();
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> liveThreads("queue-named-").isEmpty());
	}

	private static List<String> liveThreads(String prefix) {
		return Thread.getAllStackTraces().keySet().stream()
			.filter(Thread::isAlive)
			.map(Thread::getName)
			.filter((name) -> name.startsWith(prefix))
			.toList();
	}

}
