package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Refusal of duplicates: a job with a uniqueness key refuses a second one while it waits, is
 * delayed or runs; the key is released when it completes (or after its window) or dies.
 */
class UniquenessIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static JobOptions unique(String key) {
		return JobOptions.builder().uniqueKey(key).build();
	}

	@Test
	void duplicateIsRefusedWhileTheFirstIsReadyDelayedOrRunningAndGetsTheFirstId() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		EnqueueResult first = queues.enqueue("u", "a", unique("k1"));
		EnqueueResult ready = queues.enqueue("u", "b", unique("k1"));
		assertThat(first.duplicate()).isFalse();
		assertThat(ready.duplicate()).isTrue();
		assertThat(ready.id()).isEqualTo(first.id());

		EnqueueResult delayed = queues.enqueue("u", "c",
				JobOptions.builder().uniqueKey("k2").delay(Duration.ofHours(1)).build());
		assertThat(queues.enqueue("u", "d", unique("k2"))).isEqualTo(new EnqueueResult(delayed.id(), true));

		queues.reserve("u", 1, LEASE);
		assertThat(queues.enqueue("u", "e", unique("k1"))).isEqualTo(new EnqueueResult(first.id(), true));
		QueueCounts counts = admin.counts("u");
		assertThat(counts.pending()).isEqualTo(2);
		assertThat(counts.total("duplicates")).isEqualTo(3);
	}

	@Test
	void keyIsFreeAgainAfterCompletion() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue("u", "a", unique("k"));
		ReservedJob job = queues.reserve("u", 1, LEASE).get(0);
		assertThat(queues.complete("u", job.ref())).isEqualTo(AckResult.OK);

		EnqueueResult again = queues.enqueue("u", "b", unique("k"));
		assertThat(again.duplicate()).isFalse();
		assertThat(again.id()).isNotEqualTo(job.id());
	}

	@Test
	void keyStaysTakenForTheUniquenessWindowAfterCompletion() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		JobOptions options = JobOptions.builder().uniqueKey("k").uniqueFor(Duration.ofMillis(300)).build();
		queues.enqueue("u", "a", options);
		queues.complete("u", queues.reserve("u", 1, LEASE).get(0).ref());

		assertThat(queues.enqueue("u", "b", options).duplicate()).isTrue();
		await().atMost(Duration.ofSeconds(30)).until(() -> !queues.enqueue("u", "c", options).duplicate());
	}

	@Test
	void keyIsFreeAgainAfterTheJobDies() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue("u", "a", unique("k"));
		ReservedJob job = queues.reserve("u", 1, LEASE).get(0);
		assertThat(queues.deadLetter("u", job.ref(), "gave up")).isEqualTo(FailResult.DEAD_LETTERED);

		assertThat(queues.enqueue("u", "b", unique("k")).duplicate()).isFalse();
	}

	@Test
	void secondPayloadWithTheSameKeyInOneBulkCallIsRefused() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<EnqueueResult> results = queues.enqueueAll("u", List.of("a", "b"), unique("k"));
		assertThat(results.get(0).duplicate()).isFalse();
		assertThat(results.get(1)).isEqualTo(new EnqueueResult(results.get(0).id(), true));
		assertThat(admin.counts("u").ready()).isEqualTo(1);
	}

}
