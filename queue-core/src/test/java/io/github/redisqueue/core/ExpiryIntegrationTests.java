package io.github.redisqueue.core;

import java.time.Duration;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Expiry: a job not started before its expiry never runs; it is dead-lettered as "expired" by
 * reserve or by the reaper. Expiry does not apply to a job that already started.
 */
class ExpiryIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static JobOptions expiring(long millis) {
		return JobOptions.builder().expireAfter(Duration.ofMillis(millis)).build();
	}

	@Test
	void expiredJobIsNeverHandedOutAndDiesAsExpired() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("e", "late", expiring(200)).id();
		String fresh = queues.enqueue("e", "fresh").id();

		await().pollDelay(Duration.ofMillis(250)).atMost(Duration.ofSeconds(30)).until(() -> true);
		assertThat(queues.reserve("e", 10, LEASE)).extracting(ReservedJob::id).containsExactly(fresh);

		assertThat(admin.deadLetters("e", 0, 10)).singleElement().satisfies((dead) -> {
			assertThat(dead.id()).isEqualTo(id);
			assertThat(dead.error()).isEqualTo("expired");
			assertThat(dead.attempts()).isZero();
		});
		assertThat(admin.counts("e").total("expired")).isEqualTo(1);
	}

	@Test
	void reaperDeadLettersExpiredJobsOnItsOwn() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("e", "late", expiring(200)).id();

		await().atMost(Duration.ofSeconds(30)).until(() -> admin.reapOnce("e").expired() == 1);

		assertThat(admin.job("e", id).orElseThrow().state()).isEqualTo(JobState.DEAD);
		assertThat(admin.counts("e").ready()).isZero();
	}

	@Test
	void jobThatStartedBeforeItsExpiryStillRunsWhenRetriedLater() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("e", "x", expiring(300));
		ReservedJob first = queues.reserve("e", 1, LEASE).get(0);
		await().pollDelay(Duration.ofMillis(350)).atMost(Duration.ofSeconds(30)).until(() -> true);

		assertThat(queues.retry("e", first.ref(), "try again", Duration.ZERO)).isEqualTo(FailResult.RETRY_SCHEDULED);
		assertThat(admin.reapOnce("e").expired()).isZero();
		assertThat(queues.reserve("e", 1, LEASE)).singleElement()
			.satisfies((job) -> assertThat(job.attempt()).isEqualTo(2));
	}

	@Test
	void delayedJobWhoseExpiryComesBeforeItsDueTimeDiesAsExpired() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("e", "x",
				JobOptions.builder().delay(Duration.ofMillis(300)).expireAfter(Duration.ofMillis(100)).build()).id();

		await().atMost(Duration.ofSeconds(30)).until(() -> admin.job("e", id).orElseThrow().state() == JobState.DEAD
				|| !queues.reserve("e", 1, LEASE).isEmpty());
		assertThat(admin.job("e", id).orElseThrow().lastError()).isEqualTo("expired");
	}

}
