package io.github.redisqueue.core;

import java.time.Duration;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.testing.redis.TestRedis;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A durable enqueue returns once the replicas it asks for acknowledged the write, and fails with
 * the counts when fewer did in time. On the shared cluster every master has one replica (the
 * WAIT goes to the master of the queue's slot); the single server has none.
 */
class DurableEnqueueIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void anEnqueueWaitsForItsReplicasOrFailsNamingTheCounts() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		int present = TestRedis.isCluster() ? 1 : 0;
		if (present > 0) {
			queues.setDurableEnqueue(new DurableEnqueue(present, Duration.ofSeconds(5)));
			for (String queue : new String[] { "mail", "orders", "reports" }) {
				assertThat(queues.enqueue(queue, "kept").duplicate()).isFalse();
			}
		}
		queues.setDurableEnqueue(new DurableEnqueue(present + 1, Duration.ofMillis(200)));
		assertThatExceptionOfType(QueueException.class).isThrownBy(() -> queues.enqueue("mail", "hoped"))
			.withMessageContaining("reached " + present + " of " + (present + 1) + " replicas within PT0.2S")
			.withMessageContaining("retry with an idempotency key");
		assertThat(admin.counts("mail").ready()).as("the job exists on the master all the same").isEqualTo(present + 1);
	}

	@Test
	void subJobsAddedToABatchWaitForTheReplicasToo() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		int present = TestRedis.isCluster() ? 1 : 0;
		Batch batch = queues.batch("resize").open();
		if (present > 0) {
			queues.setDurableEnqueue(new DurableEnqueue(present, Duration.ofSeconds(5)));
			assertThat(batch.addAll(java.util.List.of(1, 2))).hasSize(2);
		}
		queues.setDurableEnqueue(new DurableEnqueue(present + 1, Duration.ofMillis(200)));
		assertThatExceptionOfType(QueueException.class).isThrownBy(() -> batch.addAll(java.util.List.of(3)))
			.withMessageContaining("Adding to batch '" + batch.id() + "' of queue 'resize' reached " + present + " of "
					+ (present + 1) + " replicas");
		assertThat(batch.status().total()).as("added on the master all the same").isEqualTo(2 * present + 1);
	}

	@Test
	void outOfRangeValuesAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new DurableEnqueue(-1, Duration.ofSeconds(1)));
		assertThatIllegalArgumentException().isThrownBy(() -> new DurableEnqueue(1, Duration.ZERO));
	}

}
