package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * A container consuming a partitioned queue: one wait for the announcements of all partitions
 * ends at once when any partition gets a job, and every partition is drained.
 */
class PartitionedContainerIntegrationTests extends AbstractRedisIntegrationTests {

	private final List<QueueListenerContainer> containers = new ArrayList<>();

	private final List<QueueTemplate> templates = new ArrayList<>();

	@AfterEach
	void stop() {
		this.containers.forEach(QueueListenerContainer::stop);
		this.containers.clear();
		this.templates.forEach(QueueTemplate::destroy);
		this.templates.clear();
	}

	private QueueTemplate template(String queue, int partitions) {
		QueueTemplate template = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().partitions(queue, partitions).build());
		this.templates.add(template);
		return template;
	}

	private void start(QueueTemplate queues, String queue, ContainerOptions options, JobListener listener) {
		QueueListenerContainer container = new QueueListenerContainer(queue + "-container", queue, queues, listener,
				options, null, null);
		this.containers.add(container);
		container.start();
	}

	@Test
	void anIdleContainerWakesAtOnceForAJobInAnyPartition() {
		QueueTemplate queues = template("idle-parts", 3);
		List<String> handled = new CopyOnWriteArrayList<>();
		// the longest poll interval (and half a lease, when an idle loop reserves anyway) longer than
		// each wait below: a job handled within it was announced, not polled for
		ContainerOptions options = ContainerOptions.builder().concurrency(2).pollInterval(Duration.ofSeconds(30))
			.lease(Duration.ofMinutes(60)).shutdownTimeout(Duration.ofSeconds(5)).build();
		start(queues, "idle-parts", options, (job, ack) -> handled.add(queues.readPayload(job, String.class)));
		// let the container reach its wait, then one job per partition, one after the other
		await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(30)).until(() -> true);
		for (String key : List.of("p-a", "p-b", "p-c", "p-d", "p-e", "p-f")) {
			queues.enqueue("idle-parts", key, JobOptions.builder().partitionKey(key).build());
			await().atMost(Duration.ofSeconds(20)).until(() -> handled.contains(key));
		}
		assertThat(handled).containsExactly("p-a", "p-b", "p-c", "p-d", "p-e", "p-f");
	}

	@Test
	void aMissedAnnouncementDelaysAJobByOnePollIntervalAtMost() {
		QueueTemplate queues = template("missed-parts", 3);
		List<String> handled = new CopyOnWriteArrayList<>();
		// half a lease (when an idle loop reserves anyway) is far beyond the waits below: a job
		// handled within them was found by the reserve that follows every wait of a poll interval
		ContainerOptions options = ContainerOptions.builder().pollInterval(Duration.ofMillis(300))
			.lease(Duration.ofMinutes(60)).shutdownTimeout(Duration.ofSeconds(5)).build();
		start(queues, "missed-parts", options, (job, ack) -> handled.add(queues.readPayload(job, String.class)));
		queues.enqueue("missed-parts", "first", JobOptions.builder().partitionKey("k0").build());
		await().atMost(Duration.ofSeconds(60)).until(() -> handled.size() == 1);
		// an announcement that no one heard (published while the subscription was being made
		// again): the partition's flag is set, so the next job announces nothing
		String wake = "{" + new QueueAdmin(queues).partitionCounts("missed-parts").get(0).hashTag() + "}:wake";
		this.redis.opsForList().rightPush(wake, "1");
		queues.enqueue("missed-parts", "second", JobOptions.builder().partitionKey("k0").build());
		await().atMost(Duration.ofSeconds(60)).until(() -> handled.size() == 2);
		assertThat(handled).containsExactly("first", "second");
	}

	@Test
	void aContainerDrainsEveryPartitionAndHandlesEachJobOnce() {
		QueueTemplate queues = template("drain-parts", 3);
		QueueAdmin admin = new QueueAdmin(queues);
		Set<String> handled = ConcurrentHashMap.newKeySet();
		List<String> twice = new CopyOnWriteArrayList<>();
		ContainerOptions options = ListenerTestSupport.fast(ContainerOptions.builder().concurrency(4).build());
		start(queues, "drain-parts", options, (job, ack) -> {
			if (!handled.add(queues.readPayload(job, String.class))) {
				twice.add(job.id());
			}
		});
		queues.enqueueAll("drain-parts", IntStream.range(0, 600).mapToObj((i) -> "job-" + i).toList(),
				JobOptions.defaults());
		for (int i = 0; i < 60; i++) {
			queues.enqueue("drain-parts", "keyed-" + i, JobOptions.builder().partitionKey("k" + (i % 5)).build());
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == 660);
		assertThat(twice).isEmpty();
		await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("drain-parts").total("completed") == 660);
		assertThat(admin.counts("drain-parts").pending()).isZero();
		admin.partitionCounts("drain-parts")
			.forEach((partition) -> assertThat(partition.counts().total("completed")).as(partition.name())
				.isGreaterThan(150));
	}

	@Test
	void aContainerTakesFromEveryPartitionWhileAllHoldJobs() {
		QueueTemplate queues = template("fair-parts", 3);
		List<String> order = new CopyOnWriteArrayList<>();
		// keys of partitions 0, 1 and 2
		for (String key : List.of("k0", "k1", "k3")) {
			queues.enqueueAll("fair-parts", IntStream.range(0, 40).mapToObj((i) -> key + "-" + i).toList(),
					JobOptions.builder().partitionKey(key).build());
		}
		ContainerOptions options = ListenerTestSupport
			.fast(ContainerOptions.builder().concurrency(1).prefetch(0).build());
		start(queues, "fair-parts", options, (job, ack) -> order.add(queues.readPayload(job, String.class)));
		await().atMost(Duration.ofSeconds(30)).until(() -> order.size() == 120);
		// among the first 30 handled, each key (each in a partition of its own) has a fair share
		Map<String, Integer> firstThirty = new ConcurrentHashMap<>();
		order.subList(0, 30).forEach((payload) -> firstThirty.merge(payload.substring(0, 2), 1, Integer::sum));
		assertThat(firstThirty).containsOnlyKeys("k0", "k1", "k3");
		assertThat(firstThirty.values()).allSatisfy((count) -> assertThat(count).isBetween(7, 13));
	}

}
