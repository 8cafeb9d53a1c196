package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Busy containers on a queue of many partitions: a finished job's completion reaches its
 * partition long before its lease runs out, whichever partition the fetch loop's turn is on, so
 * no job runs twice.
 */
class PartitionedCompletionIntegrationTests extends AbstractRedisIntegrationTests {

	private static final String QUEUE = "many-parts";

	private final List<QueueListenerContainer> containers = new ArrayList<>();

	private QueueTemplate queues;

	@AfterEach
	void stop() {
		this.containers.forEach(QueueListenerContainer::stop);
		this.containers.clear();
		if (this.queues != null) {
			this.queues.destroy();
		}
	}

	@Test
	void busyContainersOnThirtyTwoPartitionsRunEachJobOnce() {
		this.queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().partitions(QUEUE, 32).build());
		QueueAdmin admin = new QueueAdmin(this.queues);
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		// handlers take a tenth of the lease; a completion that waited for its partition's turn (one
		// reserve in 32) would wait about 1.6 s, longer than the lease
		ContainerOptions options = ContainerOptions.builder().concurrency(2).lease(Duration.ofSeconds(1))
			.pollInterval(Duration.ofMillis(200)).shutdownTimeout(Duration.ofSeconds(5)).build();
		JobListener listener = (job, ack) -> {
			runs.computeIfAbsent(job.id(), (id) -> new AtomicInteger()).incrementAndGet();
			Thread.sleep(100); // the handler's work
		};
		for (String id : List.of("one", "two")) {
			QueueListenerContainer container = new QueueListenerContainer(id, QUEUE, this.queues, listener, options, null,
					null);
			this.containers.add(container);
			container.start();
		}
		this.queues.enqueueAll(QUEUE, IntStream.range(0, 320).mapToObj((i) -> "job-" + i).toList(),
				JobOptions.defaults());

		await().atMost(Duration.ofSeconds(60)).until(() -> admin.counts(QUEUE).total("completed") >= 320);
		assertThat(runs).hasSize(320);
		assertThat(runs.entrySet().stream().filter((run) -> run.getValue().get() > 1).map(Map.Entry::getKey))
			.as("jobs that ran more than once").isEmpty();
		assertThat(admin.counts(QUEUE).total("completed")).isEqualTo(320);
	}

}
