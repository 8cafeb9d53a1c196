package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.RedisClock;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The admin reads for operators: a job found by its uniqueness or idempotency key (on one
 * partition and on a partitioned queue), a job's history as its record holds it, the finished
 * batches still kept, and a queue's rate-limit status with the counts of what the limit held
 * back.
 */
class QueueLookupsIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private QueueAdmin admin(QueueSettings settings) {
		return new QueueAdmin(new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(), settings));
	}

	@Test
	void jobsAreFoundByUniquenessAndIdempotencyKeys() {
		for (QueueSettings settings : List.of(QueueSettings.defaults(),
				QueueSettings.builder().partitions("parts", 4).build())) {
			QueueAdmin admin = admin(settings);
			QueueTemplate queues = admin.getTemplate();
			String queue = settings.partitionedQueues().isEmpty() ? "single" : "parts";
			String unique = queues.enqueue(queue, "a", JobOptions.builder().uniqueKey("invoice-42").build()).id();
			String idem = queues.enqueue(queue, "b", JobOptions.builder().idempotencyKey("pay-7").build()).id();
			queues.enqueue(queue, "c");

			assertThat(admin.jobIdByUniqueKey(queue, "invoice-42")).contains(unique);
			assertThat(admin.jobIdByIdempotencyKey(queue, "pay-7")).contains(idem);
			assertThat(admin.jobIdByUniqueKey(queue, "pay-7")).isEmpty();
			assertThat(admin.jobIdByIdempotencyKey(queue, "invoice-42")).isEmpty();
			// a key freed by the job's deletion finds nothing
			assertThat(admin.deleteJob(queue, unique)).isTrue();
			assertThat(admin.jobIdByUniqueKey(queue, "invoice-42")).isEmpty();
		}
		QueueAdmin admin = admin(QueueSettings.defaults());
		assertThatIllegalArgumentException().isThrownBy(() -> admin.jobIdByUniqueKey("single", ""));
		assertThatIllegalArgumentException().isThrownBy(() -> admin.jobIdByIdempotencyKey("single", "k".repeat(513)));
	}

	@Test
	void historyTellsFailuresLossesKeysAndTheBatchOfAJob() {
		QueueAdmin admin = admin(QueueSettings.defaults());
		QueueTemplate queues = admin.getTemplate();
		String id = queues.enqueue("h", "x", JobOptions.builder().uniqueKey("u-1").maxAttempts(5).build()).id();
		ReservedJob first = queues.reserve("h", 1, LEASE).get(0);
		queues.retry("h", first.ref(), "boom\n\tat Handler.run", Duration.ZERO);

		JobHistory history = admin.jobHistory("h", id).orElseThrow();
		assertThat(history.job().attempts()).isEqualTo(1);
		assertThat(history.job().lastError()).startsWith("boom");
		assertThat(history.uniqueKey()).isEqualTo("u-1");
		assertThat(history.batch()).isNull();
		assertThat(history.losses()).isZero();
		await().atMost(Duration.ofSeconds(30)).until(() -> !queues.reserve("h", 1, LEASE).isEmpty());
		assertThat(admin.jobHistory("h", id).orElseThrow().job().worker()).isNotNull();
		assertThat(admin.jobHistory("h", "987654")).isEmpty();

		queues.batch("h").id("album").addAll(List.of(1, 2)).submit();
		ReservedJob sub = queues.reserve("h", 3, LEASE).stream()
			.filter((job) -> !job.id().equals(id))
			.findFirst()
			.orElseThrow();
		assertThat(admin.jobHistory("h", sub.id()).orElseThrow().batch()).isEqualTo("album");
		// ended in its batch (dead-lettered), the sub-job still names it
		queues.deadLetter("h", sub.ref(), "bad image");
		assertThat(admin.jobHistory("h", sub.id()).orElseThrow().batch()).isEqualTo("album");
	}

	@Test
	void finishedBatchesAreListedLatestFirstWhileKept() {
		QueueAdmin admin = admin(QueueSettings.defaults());
		QueueTemplate queues = admin.getTemplate();
		for (String batch : List.of("first", "second")) {
			queues.batch("fb").id(batch).addAll(List.of(1)).submit();
			queues.reserve("fb", 1, LEASE).forEach((job) -> queues.complete("fb", job.ref()));
		}
		queues.batch("fb").id("open").addAll(List.of(1)).submit();

		List<BatchStatus> finished = admin.finishedBatches("fb", 10);
		assertThat(finished).extracting(BatchStatus::id).containsExactly("second", "first");
		assertThat(finished).allMatch(BatchStatus::isFinished);
		assertThat(admin.finishedBatches("fb", 1)).extracting(BatchStatus::id).containsExactly("second");
		assertThat(admin.batches("fb", 0, 10)).extracting(BatchStatus::id).containsExactly("open");
		assertThatIllegalArgumentException().isThrownBy(() -> admin.finishedBatches("fb", 101));
	}

	@Test
	void rateLimitStatusCountsHandOutsInTheWindowAndWhatTheLimitHeldBack() {
		QueueAdmin admin = admin(QueueSettings.builder().rateLimit("rl", RateLimit.parse("3/1h")).build());
		QueueTemplate queues = admin.getTemplate();
		RateLimitStatus before = admin.rateLimitStatus("rl");
		assertThat(before.handedOut()).isZero();
		assertThat(before.nextHandOut()).isNull();
		for (int i = 0; i < 6; i++) {
			queues.enqueue("rl", i);
		}
		assertThat(queues.reserve("rl", 2, LEASE)).hasSize(2);
		assertThat(admin.rateLimitStatus("rl").limitedCalls()).isZero();
		// one more is allowed: a call for 4 gets 1, and 3 of the 4 ready jobs it asked for are held back
		Reservation cut = queues.reserveBatch("rl", 4, LEASE, "w");
		assertThat(cut.jobs()).hasSize(1);

		RateLimitStatus status = admin.rateLimitStatus("rl");
		assertThat(status.limit()).isEqualTo(RateLimit.parse("3/1h"));
		assertThat(status.handedOut()).isEqualTo(3);
		assertThat(status.limitedCalls()).isEqualTo(1);
		assertThat(status.heldBack()).isEqualTo(3);
		assertThat(status.nextHandOut()).isAfter(status.serverTime().plus(Duration.ofMinutes(59)));
		assertThat(admin.counts("rl").total("rateLimited")).isEqualTo(1);
		assertThat(admin.counts("rl").total("rateHeld")).isEqualTo(3);

		// a queue without a limit: nothing counted, nothing held
		RateLimitStatus free = admin.rateLimitStatus("other");
		assertThat(free.limit()).isNull();
		assertThat(free.handedOut()).isZero();
		assertThat(free.limitedCalls()).isZero();
	}

	@Test
	void theRateWindowIsCountedInRedisAndOnlyTheCountIsReadBack() {
		QueueAdmin admin = admin(QueueSettings.builder().rateLimit("wide", RateLimit.parse("3/1h")).build());
		long now = RedisClock.now(this.redis).toEpochMilli();
		// a window kept for a limit of 10,000 (reserve.lua fits it to the limit when it next runs):
		// old hand-outs, then 2 within the last hour, oldest first
		StringBuilder raw = new StringBuilder();
		for (int i = 0; i < 9998; i++) {
			raw.append(String.format("%013d", now - Duration.ofHours(2).toMillis() + i));
		}
		long first = now - Duration.ofMinutes(30).toMillis();
		raw.append(String.format("%013d", first)).append(String.format("%013d", now - 1000));
		String stats = admin.getTemplate().keys("wide").key("stats");
		this.redis.opsForHash().put(stats, "~rate", raw.toString());

		long sent = netOutput(stats);
		RateLimitStatus two = admin.rateLimitStatus("wide");
		// the 130 KB window stays in Redis: the reply is a few numbers
		assertThat(netOutput(stats) - sent).isLessThan(2000);
		assertThat(two.handedOut()).isEqualTo(2);
		assertThat(two.nextHandOut()).isNull();

		this.redis.opsForHash().put(stats, "~rate", raw + String.format("%013d", now - 500));
		RateLimitStatus full = admin.rateLimitStatus("wide");
		assertThat(full.handedOut()).isEqualTo(3);
		assertThat(full.nextHandOut()).isEqualTo(Instant.ofEpochMilli(first + Duration.ofHours(1).toMillis()));

		// fewer entries than permits, and a window that cannot be read
		this.redis.opsForHash().put(stats, "~rate", String.format("%013d", now - 10));
		assertThat(admin.rateLimitStatus("wide").handedOut()).isEqualTo(1);
		this.redis.opsForHash().put(stats, "~rate", "12x");
		assertThat(admin.rateLimitStatus("wide").handedOut()).isZero();
	}

	/**
	 * Bytes the Redis server holding the key has sent to its clients so far (its own count), read
	 * by a script on that server (on a cluster, the key's master) whose reply is one number.
	 */
	private long netOutput(String key) {
		Long bytes = this.redis.execute(RedisScript.of("return tonumber(string.match(redis.call('INFO', 'stats'), "
				+ "'total_net_output_bytes:(%d+)'))", Long.class), List.of(key));
		return (bytes != null) ? bytes : -1;
	}

}
