package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Dead letters: a job dies after its max attempts with the last error; dead letters can be
 * listed, retried and purged; retention purges completed and dead jobs.
 */
class DeadLetterIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	@Test
	void jobDiesAfterItsMaxAttemptsWithTheLastError() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("d", "x", JobOptions.builder().maxAttempts(3).build()).id();
		for (int attempt = 1; attempt <= 3; attempt++) {
			ReservedJob job = queues.reserve("d", 1, LEASE).get(0);
			assertThat(job.attempt()).isEqualTo(attempt);
			FailResult result = queues.retry("d", job.ref(), "boom " + attempt, Duration.ZERO);
			assertThat(result).isEqualTo((attempt < 3) ? FailResult.RETRY_SCHEDULED : FailResult.DEAD_LETTERED);
		}
		DeadJob dead = admin.deadLetters("d", 0, 10).get(0);
		assertThat(dead.id()).isEqualTo(id);
		assertThat(dead.error()).isEqualTo("boom 3");
		assertThat(dead.attempts()).isEqualTo(3);
		assertThat(admin.counts("d").total("failed")).isEqualTo(2);
	}

	@Test
	void retryWithADelayWaitsInTheDelayedSetUntilDue() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String id = queues.enqueue("d", "x").id();
		ReservedJob job = queues.reserve("d", 1, LEASE).get(0);
		queues.retry("d", job.ref(), "later", Duration.ofMillis(300));

		assertThat(admin.job("d", id).orElseThrow().state()).isEqualTo(JobState.DELAYED);
		assertThat(queues.reserve("d", 1, LEASE)).isEmpty();
		ReservedJob again = await().atMost(Duration.ofSeconds(30))
			.until(() -> queues.reserve("d", 1, LEASE), (jobs) -> !jobs.isEmpty())
			.get(0);
		assertThat(again.attempt()).isEqualTo(2);
	}

	@Test
	void deadLetterKillsAtOnceWhateverAttemptsAreLeft() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("d", "x", JobOptions.builder().maxAttempts(10).build());
		ReservedJob job = queues.reserve("d", 1, LEASE).get(0);
		assertThat(queues.deadLetter("d", job.ref(), "fatal")).isEqualTo(FailResult.DEAD_LETTERED);
		assertThat(admin.counts("d").dead()).isEqualTo(1);
	}

	@Test
	void deadLettersArePagedMostRecentFirstWithoutOverlap() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		killAll(queues, 25);
		List<DeadJob> first = admin.deadLetters("d", 0, 10);
		List<DeadJob> second = admin.deadLetters("d", 10, 10);
		List<DeadJob> third = admin.deadLetters("d", 20, 10);
		assertThat(first).hasSize(10);
		assertThat(second).hasSize(10);
		assertThat(third).hasSize(5);
		List<DeadJob> all = new java.util.ArrayList<>(first);
		all.addAll(second);
		all.addAll(third);
		assertThat(all).extracting(DeadJob::id).doesNotHaveDuplicates().hasSize(25);
		assertThat(all).extracting(DeadJob::diedAt).isSortedAccordingTo((a, b) -> b.compareTo(a));
	}

	@Test
	void retryDeadPutsOneJobBackWithItsAttemptsReset() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = killAll(queues, 2);
		assertThat(admin.retryDead("d", ids.get(0))).isTrue();
		assertThat(admin.retryDead("d", ids.get(0))).isFalse();
		ReservedJob job = queues.reserve("d", 1, LEASE).get(0);
		assertThat(job.id()).isEqualTo(ids.get(0));
		assertThat(job.attempt()).isEqualTo(1);
		assertThat(admin.counts("d").dead()).isEqualTo(1);
	}

	@Test
	void retryAllAndPurgeAllEmptyTheDeadLetters() {
		// a small batch makes "all" take several steps
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().reapBatch(7).build());
		QueueAdmin admin = new QueueAdmin(queues);
		killAll(queues, 20);
		assertThat(admin.retryAllDead("d")).isEqualTo(20);
		assertThat(admin.counts("d").dead()).isZero();
		assertThat(admin.counts("d").ready()).isEqualTo(20);
		queues.completeAll("d", queues.reserve("d", 20, LEASE).stream().map(ReservedJob::ref).toList());

		List<String> ids = killAll(queues, 20);
		assertThat(admin.purgeDead("d", ids.get(0))).isTrue();
		assertThat(admin.job("d", ids.get(0))).isEmpty();
		assertThat(admin.purgeAllDead("d")).isEqualTo(19);
		assertThat(admin.job("d", ids.get(1))).isEmpty();
		assertThat(admin.counts("d").dead()).isZero();
	}

	@Test
	void retentionPurgesCompletedAndDeadJobs() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(), QueueSettings.builder()
					.completedRetention(Duration.ofMillis(200))
					.deadRetention(Duration.ofMillis(200))
					.build());
		QueueAdmin admin = new QueueAdmin(queues);
		String done = queues.enqueue("d", "done").id();
		queues.complete("d", queues.reserve("d", 1, LEASE).get(0).ref());
		assertThat(admin.job("d", done).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
		String dead = killAll(queues, 1).get(0);

		await().atMost(Duration.ofSeconds(30)).until(() -> {
			admin.reapOnce("d");
			return admin.job("d", done).isEmpty() && admin.job("d", dead).isEmpty();
		});
		assertThat(admin.counts("d").completed()).isZero();
		assertThat(admin.counts("d").dead()).isZero();
	}

	private static List<String> killAll(QueueTemplate queues, int count) {
		List<String> ids = queues.enqueueAll("d", IntStream.range(0, count).boxed().toList(), JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();
		for (ReservedJob job : queues.reserve("d", count, LEASE)) {
			queues.deadLetter("d", job.ref(), "dead " + job.id());
		}
		return ids;
	}

}
