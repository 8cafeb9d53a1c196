package io.github.redisqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;

import io.github.redisqueue.listener.ContainerOptions;
import io.github.redisqueue.listener.QueueListenerContainer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A job hash damaged by hand (a field deleted or holding text where a number belongs) harms no
 * other job: every script validates what it reads before it writes, the damaged job is
 * dead-lettered with the reason when it cannot be handed out, and the Java side reads it without
 * throwing. Each field is damaged in turn, in the middle of healthy jobs, on the paths of the pull
 * API, the reaper (expired leases and due delayed jobs), the admin calls and a listener container.
 */
class CorruptJobHashIntegrationTests extends AbstractRedisIntegrationTests {

	private static final String QUEUE = "mail";

	/** Fields a job cannot be handed out without: damaging them dead-letters the job. */
	private static final Set<String> REQUIRED = Set.of("priority", "score", "attempts", "maxAttempts", "token",
			"enqueuedAt");

	static Stream<Arguments> damage() {
		List<Arguments> cases = new ArrayList<>();
		for (String field : List.of("state", "payload", "headers", "priority", "score", "attempts", "maxAttempts",
				"token", "enqueuedAt", "dueAt", "expireAt", "readyAt", "lost", "uniqueKey", "uniqueTtl")) {
			cases.add(Arguments.of(field, null));
			cases.add(Arguments.of(field, "abc"));
		}
		return cases.stream();
	}

	private static boolean unusable(String field, @Nullable String value) {
		return REQUIRED.contains(field) || (value == null && (field.equals("state") || field.equals("payload")));
	}

	@ParameterizedTest(name = "{0} = {1}")
	@MethodSource("damage")
	void pullApiHandsOutEveryHealthyJobAroundADamagedOne(String field, @Nullable String value) {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = enqueueFive(queues, JobOptions.builder().uniqueKey("u").build());
		String bad = ids.get(2);
		damage(queues, bad, field, value);

		// two at a time, so that the damaged job is popped in the same call as a healthy one
		List<ReservedJob> handedOut = drainHealthyInOrder(queues, ids, bad, 2);
		completeAll(queues, handedOut);
		if (unusable(field, value)) {
			assertThat(handedOut).extracting(ReservedJob::id).doesNotContain(bad);
			assertThat(admin.deadLetters(QUEUE, 0, 10)).singleElement().satisfies((dead) -> {
				assertThat(dead.id()).isEqualTo(bad);
				assertThat(dead.error()).isEqualTo("corrupt job: field " + field + " is "
						+ ((value != null) ? "'" + value + "'" : "missing"));
			});
			assertThat(admin.job(QUEUE, bad)).hasValueSatisfying(
					(info) -> assertThat(info.state()).isEqualTo(JobState.DEAD));
			// an operator's retry works when the damage allows it, is refused with the reason otherwise
			admin.retryAllDead(QUEUE);
			assertThat(admin.counts(QUEUE).dead() + admin.counts(QUEUE).ready()).isEqualTo(1);
		}
		else {
			assertThat(handedOut).extracting(ReservedJob::id).contains(bad);
			assertThat(admin.counts(QUEUE).dead()).isZero();
		}
	}

	@ParameterizedTest(name = "{0} = {1}")
	@MethodSource("damage")
	void reaperTakesBackEveryHealthyLeaseAroundADamagedOne(String field, @Nullable String value) {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = enqueueFive(queues, JobOptions.defaults());
		assertThat(queues.reserveBatch(QUEUE, 5, Duration.ofMillis(20), "w1").jobs()).hasSize(5);
		String bad = ids.get(2);
		damage(queues, bad, field, value);

		await().atMost(Duration.ofSeconds(30)).until(() -> {
			admin.reapOnce();
			return admin.counts(QUEUE).inFlight() == 0;
		});

		List<ReservedJob> handedOut = drainHealthyInOrder(queues, ids, bad, 10);
		handedOut.forEach((job) -> assertThat(job.attempt()).isEqualTo(1));
		completeAll(queues, handedOut);
		assertThat(admin.job(QUEUE, bad)).isNotNull();
	}

	@ParameterizedTest(name = "{0} = {1}")
	@MethodSource("damage")
	void dueDelayedJobsArePromotedAroundADamagedOne(String field, @Nullable String value) {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = enqueueFive(queues, JobOptions.builder().delay(Duration.ofMillis(50)).build());
		String bad = ids.get(2);
		damage(queues, bad, field, value);

		await().atMost(Duration.ofSeconds(30)).until(() -> {
			admin.reapOnce();
			return admin.counts(QUEUE).delayed() == 0;
		});

		completeAll(queues, drainHealthyInOrder(queues, ids, bad, 10));
	}

	@Test
	void listenerContainerHandlesEveryHealthyJobAroundDamagedOnes() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = enqueueFive(queues, JobOptions.defaults());
		damage(queues, ids.get(1), "attempts", "abc");
		damage(queues, ids.get(3), "priority", null);
		damage(queues, ids.get(4), "headers", "{not json");
		ConcurrentLinkedQueue<String> handled = new ConcurrentLinkedQueue<>();
		QueueListenerContainer container = new QueueListenerContainer("corrupt", QUEUE, queues,
				(job, ack) -> handled.add(job.id()), ContainerOptions.builder().pollInterval(Duration.ofMillis(100)).build(),
				null, null);
		container.start();
		try {
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(handled).containsExactlyInAnyOrder(ids.get(0), ids.get(2), ids.get(4)));
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				QueueCounts counts = admin.counts(QUEUE);
				assertThat(counts.inFlight() + counts.ready()).isZero();
				assertThat(counts.dead()).isEqualTo(2);
			});
			assertThat(container.getFailure()).isNull();
		}
		finally {
			container.stop();
		}
	}

	@Test
	void countersDamagedByHandAreSkippedNotThrown() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue(QUEUE, "one");
		this.redis.opsForHash().put(queues.keys(QUEUE).key("stats"), "enqueued", "many");

		QueueCounts counts = admin.counts(QUEUE);

		assertThat(counts.ready()).isEqualTo(1);
		assertThat(counts.totals()).doesNotContainKey("enqueued");
	}

	private List<String> enqueueFive(QueueTemplate queues, JobOptions options) {
		List<String> ids = new ArrayList<>();
		for (int i = 1; i <= 5; i++) {
			// one uniqueness key per job when the options name one
			JobOptions own = (options.getUniqueKey() != null)
					? options.toBuilder().uniqueKey(options.getUniqueKey() + i).build() : options;
			ids.add(queues.enqueue(QUEUE, "job-" + i, own).id());
		}
		return ids;
	}

	private void damage(QueueTemplate queues, String id, String field, @Nullable String value) {
		JobRecords records = new JobRecords(this.redis, queues, QUEUE);
		if (field.equals("payload")) {
			if (value == null) {
				records.put(id, "payload", null);
			}
			else {
				records.payload(id, value);
			}
		}
		else {
			records.put(id, field, value);
		}
	}

	/** Reserves until the queue is empty; every healthy job comes out once, in enqueue order. */
	private static List<ReservedJob> drainHealthyInOrder(QueueTemplate queues, List<String> ids, String bad,
			int perCall) {
		List<ReservedJob> handedOut = drain(queues, perCall);
		assertThat(handedOut).extracting(ReservedJob::id)
			.filteredOn((id) -> !id.equals(bad))
			.containsExactlyElementsOf(ids.stream().filter((id) -> !id.equals(bad)).toList());
		return handedOut;
	}

	/** Completes what was handed out; then nothing is left but the damaged job, dead or gone. */
	private static void completeAll(QueueTemplate queues, List<ReservedJob> handedOut) {
		handedOut.forEach((job) -> assertThat(queues.complete(QUEUE, job.ref())).isEqualTo(AckResult.OK));
		assertEmptyButDead(queues);
	}

	private static List<ReservedJob> drain(QueueTemplate queues, int perCall) {
		QueueAdmin admin = new QueueAdmin(queues);
		List<ReservedJob> handedOut = new ArrayList<>();
		for (int call = 0; call < 20; call++) {
			List<ReservedJob> jobs = queues.reserve(QUEUE, perCall, Duration.ofMinutes(1));
			if (jobs.isEmpty() && admin.counts(QUEUE).ready() == 0) {
				break;
			}
			handedOut.addAll(jobs);
		}
		return handedOut;
	}

	private static void assertEmptyButDead(QueueTemplate queues) {
		QueueAdmin admin = new QueueAdmin(queues);
		QueueCounts counts = admin.counts(QUEUE);
		assertThat(counts.ready()).isZero();
		assertThat(counts.delayed()).isZero();
		assertThat(counts.inFlight()).isZero();
		assertThat(counts.dead()).isLessThanOrEqualTo(1);
	}

}
