package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redisqueue.core.AckResult;
import io.github.redisqueue.core.JobRef;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fencing inside the container: when a running job's lease is lost (here: given back behind the
 * handler's back), the next extension is refused, the handler is interrupted, and its result is
 * not acknowledged.
 */
class LeaseLossIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void handlerWhoseLeaseIsLostIsInterruptedAndNotAcknowledged() throws Exception {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		AtomicReference<JobRef> firstRef = new AtomicReference<>();
		AtomicInteger interrupted = new AtomicInteger();
		AtomicInteger calls = new AtomicInteger();
		CountDownLatch running = new CountDownLatch(1);
		QueueListenerContainer container = new QueueListenerContainer("loss", "loss", queues, (job, ack) -> {
			if (calls.incrementAndGet() == 1) {
				firstRef.set(job.ref());
				running.countDown();
				try {
					new CountDownLatch(1).await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					interrupted.incrementAndGet();
					throw ex;
				}
			}
		}, ContainerOptions.builder().lease(Duration.ofMillis(300)).pollInterval(Duration.ofMillis(100)).build(), null,
				null);
		container.start();
		try {
			queues.enqueue("loss", "x");
			assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

			assertThat(queues.release("loss", firstRef.get())).isEqualTo(AckResult.OK);

			await().atMost(Duration.ofSeconds(30)).until(() -> interrupted.get() == 1);
			await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("loss").total("completed") == 1);
			assertThat(calls).hasValue(2);
			assertThat(admin.counts("loss").total("failed")).isZero();
			assertThat(admin.counts("loss").dead()).isZero();
		}
		finally {
			container.stop();
		}
	}

}
