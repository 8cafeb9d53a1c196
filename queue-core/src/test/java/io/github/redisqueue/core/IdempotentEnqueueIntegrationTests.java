package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Idempotent enqueue (crash trial): a producer that retries an enqueue after an ambiguous failure
 * sends the same idempotency key; within the key's window the retry returns the first job's id
 * with {@code duplicate = true}, whatever became of the first job. Unlike a uniqueness key it
 * does not end when the job completes or dies.
 */
class IdempotentEnqueueIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static JobOptions idempotent(String key) {
		return JobOptions.builder().idempotencyKey(key).build();
	}

	@Test
	void secondEnqueueWithTheSameKeyReturnsTheFirstJobWhileItWaits() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		EnqueueResult first = queues.enqueue("idem", "order-7", idempotent("order-7"));
		assertThat(first.duplicate()).isFalse();

		EnqueueResult second = queues.enqueue("idem", "order-7 (sent again)", idempotent("order-7"));

		assertThat(second).isEqualTo(new EnqueueResult(first.id(), true));
		assertThat(admin.counts("idem").ready()).isEqualTo(1);
		assertThat(admin.job("idem", first.id()).orElseThrow().payloadAsString()).isEqualTo("\"order-7\"");
	}

	@Test
	void secondEnqueueWithTheSameKeyReturnsTheFirstJobAfterItCompleted() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String first = queues.enqueue("idem", "order-7", idempotent("order-7")).id();
		assertThat(queues.complete("idem", queues.reserve("idem", 1, LEASE).get(0).ref())).isEqualTo(AckResult.OK);

		EnqueueResult second = queues.enqueue("idem", "order-7", idempotent("order-7"));

		assertThat(second).isEqualTo(new EnqueueResult(first, true));
		assertThat(admin.counts("idem").pending()).isZero();
		assertThat(queues.reserve("idem", 1, LEASE)).isEmpty();
	}

	@Test
	void secondEnqueueWithTheSameKeyReturnsTheFirstJobAfterItDied() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String first = queues.enqueue("idem", "order-7", idempotent("order-7")).id();
		queues.deadLetter("idem", queues.reserve("idem", 1, LEASE).get(0).ref(), "fatal");

		assertThat(queues.enqueue("idem", "order-7", idempotent("order-7"))).isEqualTo(new EnqueueResult(first, true));
		assertThat(admin.counts("idem").pending()).isZero();
	}

	@Test
	void afterTheWindowTheSameKeyCreatesANewJob() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		JobOptions options = JobOptions.builder()
			.idempotencyKey("order-7")
			.idempotencyWindow(Duration.ofMillis(500))
			.build();
		String first = queues.enqueue("idem", "order-7", options).id();
		assertThat(queues.complete("idem", queues.reserve("idem", 1, LEASE).get(0).ref())).isEqualTo(AckResult.OK);
		assertThat(queues.enqueue("idem", "order-7", options)).isEqualTo(new EnqueueResult(first, true));

		EnqueueResult later = await().atMost(Duration.ofSeconds(10))
			.until(() -> queues.enqueue("idem", "order-7", options), (result) -> !result.duplicate());

		assertThat(later.id()).isNotEqualTo(first);
		assertThat(queues.reserve("idem", 1, LEASE)).extracting(ReservedJob::id).containsExactly(later.id());
	}

	@Test
	void differentKeysMakeDifferentJobs() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		EnqueueResult a = queues.enqueue("idem", "a", idempotent("order-7"));
		EnqueueResult b = queues.enqueue("idem", "b", idempotent("order-8"));
		EnqueueResult plain = queues.enqueue("idem", "c");

		assertThat(List.of(a, b, plain)).extracting(EnqueueResult::duplicate).containsOnly(false);
		assertThat(List.of(a.id(), b.id(), plain.id())).doesNotHaveDuplicates();
		assertThat(admin.counts("idem").ready()).isEqualTo(3);
	}

	@Test
	void sharedIdempotencyKeyForABulkEnqueueOfMoreThanOnePayloadIsRefused() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);

		assertThatIllegalArgumentException()
			.isThrownBy(() -> queues.enqueueAll("idem", List.of("a", "b"), idempotent("batch-1")));

		assertThat(admin.counts("idem").pending()).isZero();
		EnqueueResult single = queues.enqueueAll("idem", List.of("a"), idempotent("batch-1")).get(0);
		assertThat(single.duplicate()).isFalse();
		assertThat(queues.enqueue("idem", "a", idempotent("batch-1"))).isEqualTo(new EnqueueResult(single.id(), true));
	}

	@Test
	void idempotencyWindowsAboveTenYearsAreRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> JobOptions.builder().idempotencyKey("k").idempotencyWindow(Duration.ofDays(3651)).build());
		assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder()
			.idempotencyKey("k")
			.idempotencyWindow(Duration.ofMillis(Long.MAX_VALUE))
			.build());
		assertThat(JobOptions.builder().idempotencyKey("k").idempotencyWindow(Duration.ofDays(3650)).build())
			.isNotNull();
	}

}
