package io.github.redisqueue.support.micrometer;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.core.JobOptions;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.core.ReservedJob;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Outcome counters move as jobs flow: enqueued, duplicate, completed, failed, dead-lettered,
 * reaped.
 */
class MicrometerJobEventsIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void countersFollowWhatHappensToJobs() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.setJobEvents(new MicrometerJobEvents(registry));

		queues.enqueueAll("mail", List.of(1, 2, 3), JobOptions.defaults());
		queues.enqueue("mail", 4, JobOptions.builder().uniqueKey("k").build());
		queues.enqueue("mail", 5, JobOptions.builder().uniqueKey("k").build());
		List<ReservedJob> jobs = queues.reserve("mail", 3, Duration.ofMinutes(1));
		queues.complete("mail", jobs.get(0).ref());
		queues.retry("mail", jobs.get(1).ref(), "again", Duration.ZERO);
		queues.deadLetter("mail", jobs.get(2).ref(), "no");
		queues.reserve("mail", 1, Duration.ofMillis(20));
		await().atMost(Duration.ofSeconds(5)).until(() -> queues.reapOnce("mail").reclaimed() == 1);

		assertThat(count(registry, "enqueued")).isEqualTo(4);
		assertThat(count(registry, "duplicate")).isEqualTo(1);
		assertThat(count(registry, "completed")).isEqualTo(1);
		assertThat(count(registry, "failed")).isEqualTo(1);
		assertThat(count(registry, "dead_lettered")).isEqualTo(1);
		assertThat(count(registry, "reaped")).isEqualTo(1);
	}

	private static double count(SimpleMeterRegistry registry, String outcome) {
		var counter = registry.find("queue.job.outcomes").tag("queue", "mail").tag("outcome", outcome).counter();
		return (counter != null) ? counter.count() : 0;
	}

}
