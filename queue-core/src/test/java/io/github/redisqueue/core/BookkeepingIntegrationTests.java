package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counters and housekeeping (F11): refused duplicates are not counted as enqueued; pause and
 * resume say whether they changed anything and do not pile up wake-ups; completed jobs kept under
 * a retention are purged once the retention goes back to zero.
 */
class BookkeepingIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	// F11a
	@Test
	void refusedDuplicatesAreNotCountedAsEnqueued() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		JobOptions options = JobOptions.builder().uniqueKey("k").build();
		for (int i = 0; i < 5; i++) {
			queues.enqueue("f11", "x" + i, options);
		}

		QueueCounts counts = admin.counts("f11");
		assertThat(counts.total("enqueued")).isEqualTo(1);
		assertThat(counts.total("duplicates")).isEqualTo(4);
		assertThat(counts.ready()).isEqualTo(1);
	}

	// F11a, bulk
	@Test
	void refusedDuplicatesOfABulkEnqueueAreNotCountedAsEnqueued() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll("f11", List.of("a", "b", "c"), JobOptions.builder().uniqueKey("k").build());
		queues.enqueueAll("f11", List.of("d", "e"), JobOptions.defaults());

		QueueCounts counts = admin.counts("f11");
		assertThat(counts.total("enqueued")).isEqualTo(3);
		assertThat(counts.total("duplicates")).isEqualTo(2);
	}

	// F11b
	@Test
	void pauseAndResumeSayWhetherTheyChangedTheState() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);

		assertThat(admin.resume("f11")).as("resume of a queue that is not paused").isFalse();
		assertThat(admin.pause("f11")).isTrue();
		assertThat(admin.pause("f11")).as("pause of a paused queue").isFalse();
		assertThat(admin.counts("f11").paused()).isTrue();
		assertThat(admin.resume("f11")).isTrue();
		assertThat(admin.resume("f11")).isFalse();
		assertThat(admin.counts("f11").paused()).isFalse();
	}

	// F11b
	@Test
	void manyPauseAndResumeWithNoConsumerDoNotPileUpWakeUps() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("f11", "x");

		for (int i = 0; i < 1000; i++) {
			assertThat(admin.pause("f11")).isTrue();
			assertThat(admin.resume("f11")).isTrue();
		}

		assertThat(this.redis.opsForList().size(queues.keys("f11").key("wake"))).isLessThanOrEqualTo(8);
		assertThat(queues.reserve("f11", 1, LEASE)).hasSize(1);
	}

	// F11c
	@Test
	void completedJobsKeptUnderARetentionArePurgedOnceTheRetentionIsBackToZero() {
		QueueTemplate keeping = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().completedRetention(Duration.ofHours(1)).build());
		QueueAdmin keepingAdmin = new QueueAdmin(keeping);
		String id = keeping.enqueue("f11", "x").id();
		assertThat(keeping.complete("f11", keeping.reserve("f11", 1, LEASE).get(0).ref())).isEqualTo(AckResult.OK);
		assertThat(keepingAdmin.job("f11", id).orElseThrow().state()).isEqualTo(JobState.COMPLETED);

		// the application restarts without a retention (or another application reaps the queue)
		QueueTemplate deleting = new QueueTemplate(this.connectionFactory);
		QueueAdmin deletingAdmin = new QueueAdmin(deleting);
		ReapResult pass = deletingAdmin.reapOnce("f11");

		assertThat(pass.purgedCompleted()).isEqualTo(1);
		assertThat(deletingAdmin.job("f11", id)).isEmpty();
		assertThat(deletingAdmin.counts("f11").completed()).isZero();
	}

	// F11c, through the pass over every queue
	@Test
	void reaperPassOverEveryQueuePurgesCompletedJobsLeftFromARetention() {
		QueueTemplate keeping = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().completedRetention(Duration.ofHours(1)).build());
		QueueAdmin keepingAdmin = new QueueAdmin(keeping);
		keeping.enqueueAll("f11", List.of("a", "b", "c"), JobOptions.defaults());
		keeping.completeAll("f11", keeping.reserve("f11", 3, LEASE).stream().map(ReservedJob::ref).toList());
		assertThat(keepingAdmin.counts("f11").completed()).isEqualTo(3);

		assertThat(new QueueAdmin(new QueueTemplate(this.connectionFactory)).reapOnce().purgedCompleted()).isEqualTo(3);

		assertThat(keepingAdmin.counts("f11").completed()).isZero();
		JobRecords records = new JobRecords(this.redis, keeping, "f11");
		assertThat(records.count()).isZero();
	}

}
