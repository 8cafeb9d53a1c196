package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Uniqueness, idempotency and group concurrency across the partitions of a queue (B02, N04): a job
 * goes to the partition of one of its keys and each partition checks only its own, so a job whose
 * partition key, group, uniqueness key and idempotency key differ is refused, naming both keys;
 * jobs of one key meet in one partition, where the guarantee holds. P = 4.
 */
class PartitionedRoutingIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final String QUEUE = "routed";

	private static final List<String[]> KEYS = List.of(new String[] { "partition key", "p" },
			new String[] { "group", "g" }, new String[] { "uniqueness key", "u" },
			new String[] { "idempotency key", "i" });

	private QueueTemplate queues() {
		return new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().partitions(QUEUE, 4).defaultMaxAttempts(1).build());
	}

	@Test
	void everyPairOfDifferentKeysIsRefusedNamingBothAndWritesNothing() {
		QueueTemplate queues = queues();
		QueueAdmin admin = new QueueAdmin(queues);
		for (int a = 0; a < KEYS.size(); a++) {
			for (int b = a + 1; b < KEYS.size(); b++) {
				JobOptions.Builder options = JobOptions.builder();
				set(options, KEYS.get(a)[1], "first-" + a);
				set(options, KEYS.get(b)[1], "second-" + b);
				JobOptions built = options.build();
				String one = KEYS.get(a)[0] + " 'first-" + a + "'";
				String other = KEYS.get(b)[0] + " 'second-" + b + "'";
				assertThatIllegalArgumentException().isThrownBy(() -> queues.enqueue(QUEUE, "x", built))
					.withMessageContaining(one)
					.withMessageContaining(other)
					.withMessageContaining("4 partitions");
			}
		}
		assertThatIllegalArgumentException()
			.isThrownBy(() -> queues.enqueueAll(QUEUE, List.of("x", "y"),
					JobOptions.builder().group("customer-0").uniqueKey("invoice-7").build()))
			.withMessageContaining("group 'customer-0'")
			.withMessageContaining("uniqueness key 'invoice-7'");
		assertThat(admin.counts(QUEUE).ready() + admin.counts(QUEUE).delayed()).isZero();
	}

	// B02 (a): a uniqueness key holds whether the job carries a group too or not
	@Test
	void aUniquenessKeyHoldsBesideAGroupOfTheSameValue() {
		QueueTemplate queues = queues();
		EnqueueResult grouped = queues.enqueue(QUEUE, "a", JobOptions.builder().group("invoice-7").uniqueKey("invoice-7").build());
		EnqueueResult alone = queues.enqueue(QUEUE, "b", JobOptions.builder().uniqueKey("invoice-7").build());

		assertThat(grouped.duplicate()).isFalse();
		assertThat(alone.duplicate()).isTrue();
		assertThat(alone.id()).isEqualTo(grouped.id());
		assertThat(drain(queues)).hasSize(1);
	}

	// B02 (b): a group of concurrency 1 hands out one job at a time, whichever partition key
	@Test
	void aGroupHoldsItsConcurrencyAcrossTheQueue() {
		QueueTemplate queues = queues();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> queues.enqueue(QUEUE, "x", JobOptions.builder().group("tenant-9").partitionKey("order-1").build()))
			.withMessageContaining("partition key 'order-1'")
			.withMessageContaining("group 'tenant-9'");
		for (int i = 0; i < 4; i++) {
			queues.enqueue(QUEUE, "job-" + i, JobOptions.builder().group("tenant-9").build());
		}
		queues.enqueue(QUEUE, "same", JobOptions.builder().group("tenant-9").partitionKey("tenant-9").build());

		assertThat(drain(queues)).hasSize(1);
	}

	// B02 (c), N04: one idempotency key, one job
	@Test
	void anIdempotencyKeyNamesOneJobAcrossTheQueue() {
		QueueTemplate queues = queues();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> queues.enqueue(QUEUE, "x", JobOptions.builder().idempotencyKey("req-7").partitionKey("order-2").build()))
			.withMessageContaining("idempotency key 'req-7'")
			.withMessageContaining("partition key 'order-2'");
		EnqueueResult first = queues.enqueue(QUEUE, "a", JobOptions.builder().idempotencyKey("req-7").build());
		EnqueueResult again = queues.enqueue(QUEUE, "a",
				JobOptions.builder().idempotencyKey("req-7").partitionKey("req-7").build());

		assertThat(again.duplicate()).isTrue();
		assertThat(again.id()).isEqualTo(first.id());
		assertThat(drain(queues)).hasSize(1);
	}

	// B02 (d): a dead job retried while another holds its uniqueness key
	@Test
	void aDeadJobRetriedWhileItsUniquenessKeyIsHeldStaysDead() {
		QueueTemplate queues = queues();
		QueueAdmin admin = new QueueAdmin(queues);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> queues.enqueue(QUEUE, "x", JobOptions.builder().uniqueKey("u-1").partitionKey("tenant-1").build()))
			.withMessageContaining("uniqueness key 'u-1'")
			.withMessageContaining("partition key 'tenant-1'");
		String a = queues.enqueue(QUEUE, "a", JobOptions.builder().uniqueKey("u-1").build()).id();
		ReservedJob held = queues.reserve(QUEUE, 10, LEASE).get(0);
		assertThat(held.id()).isEqualTo(a);
		queues.deadLetter(QUEUE, held.ref(), "broken");
		EnqueueResult b = queues.enqueue(QUEUE, "b", JobOptions.builder().uniqueKey("u-1").partitionKey("u-1").build());
		assertThat(b.duplicate()).isFalse();

		assertThat(admin.retryDead(QUEUE, a)).isFalse();

		assertThat(drain(queues)).extracting(ReservedJob::id).containsExactly(b.id());
		assertThat(admin.counts(QUEUE).dead()).isEqualTo(1);
	}

	@Test
	void aQueueOfOnePartitionStillTakesEveryCombination() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		EnqueueResult first = queues.enqueue("whole", "a",
				JobOptions.builder().group("customer-0").uniqueKey("invoice-7").idempotencyKey("req-1").partitionKey("p").build());
		EnqueueResult again = queues.enqueue("whole", "a", JobOptions.builder().uniqueKey("invoice-7").build());

		assertThat(again.duplicate()).isTrue();
		assertThat(again.id()).isEqualTo(first.id());
	}

	/** Every job the queue hands out now, reserving until nothing comes. */
	private static List<ReservedJob> drain(QueueTemplate queues) {
		List<ReservedJob> all = new java.util.ArrayList<>();
		for (int i = 0; i < 8; i++) {
			all.addAll(queues.reserve(QUEUE, 100, LEASE));
		}
		return all;
	}

	private static void set(JobOptions.Builder options, String which, String value) {
		UnaryOperator<JobOptions.Builder> setter = switch (which) {
			case "p" -> (o) -> o.partitionKey(value);
			case "g" -> (o) -> o.group(value);
			case "u" -> (o) -> o.uniqueKey(value);
			default -> (o) -> o.idempotencyKey(value);
		};
		setter.apply(options);
	}

}
