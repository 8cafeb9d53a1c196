package io.github.redisqueue.listener;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redisqueue.core.JobState;
import io.github.redisqueue.core.QueueAdmin;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link QueueListenerContainer#runOne()}: one job through the container's listener on the
 * calling thread, settled as the container's own threads settle it, and refused while the
 * container runs.
 */
class ContainerRunOneIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void runsOneJobOnTheCallingThreadAndSettlesIt() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> threads = new CopyOnWriteArrayList<>();
		QueueListenerContainer container = new QueueListenerContainer("one", "one", queues, (job, ack) -> {
			threads.add(Thread.currentThread().getName());
			if (new String(job.payload()).contains("bad")) {
				throw new IllegalStateException("refused");
			}
		}, ContainerOptions.builder().maxAttempts(1).build(), null, null);
		String good = queues.enqueue("one", "good").id();
		String bad = queues.enqueue("one", "bad").id();

		assertThat(container.runOne()).map(ReservedJob::id).contains(good);
		assertThat(admin.counts("one").total("completed")).isEqualTo(1);
		assertThat(admin.counts("one").ready()).isEqualTo(1);

		assertThat(container.runOne()).map(ReservedJob::id).contains(bad);
		assertThat(admin.job("one", bad)).map((job) -> job.state()).contains(JobState.DEAD);
		assertThat(admin.deadLetters("one", 0, 10)).singleElement()
			.satisfies((dead) -> assertThat(dead.error()).contains("refused"));

		assertThat(container.runOne()).isEmpty();
		assertThat(threads).containsOnly(Thread.currentThread().getName()).hasSize(2);
	}

	@Test
	void isRefusedWhileTheContainerRuns() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueListenerContainer container = new QueueListenerContainer("running", "running", queues, (job, ack) -> {
		}, ListenerTestSupport.fast(ContainerOptions.defaults()), null, null);
		container.start();
		try {
			assertThatIllegalStateException().isThrownBy(container::runOne)
				.withMessage("Container 'running' is running: stop it before runOne()");
		}
		finally {
			container.stop();
		}
	}

}
