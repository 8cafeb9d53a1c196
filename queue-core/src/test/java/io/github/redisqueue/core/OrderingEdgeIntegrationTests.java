package io.github.redisqueue.core;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;

import io.github.redisqueue.QueueException;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.RedisClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Order and identity at the edges: delayed jobs due in the same millisecond keep their enqueue
 * order (F06); job ids are exact integers for the whole accepted sequence range, a queue refuses
 * enqueues past its documented limit (10^12) before writing anything (F05), and a lost sequence
 * key never lets an enqueue overwrite an existing job (S4).
 */
class OrderingEdgeIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final long SEQUENCE_LIMIT = 1_000_000_000_000L;

	// F06
	@Test
	void bulkEnqueueWithOneDelayComesOutInEnqueueOrderOnceDue() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> ids = queues
			.enqueueAll("f06", IntStream.rangeClosed(1, 30).boxed().toList(),
					JobOptions.builder().delay(Duration.ofMillis(300)).build())
			.stream()
			.map(EnqueueResult::id)
			.toList();
		RedisClock.awaitPast(this.redis, admin.job("f06", ids.get(29)).orElseThrow().dueAt());

		List<ReservedJob> jobs = queues.reserve("f06", 30, LEASE);

		assertThat(jobs).extracting(ReservedJob::id).containsExactlyElementsOf(ids);
		assertThat(jobs).extracting(ReservedJob::payloadAsString)
			.containsExactlyElementsOf(IntStream.rangeClosed(1, 30).mapToObj(String::valueOf).toList());
	}

	// F06
	@Test
	void jobsWithOneRunAtEnqueuedOneByOneComeOutInEnqueueOrderOnceDue() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		Instant runAt = RedisClock.now(this.redis).plusMillis(500);
		List<String> ids = new ArrayList<>();
		for (int i = 1; i <= 12; i++) {
			ids.add(queues.enqueue("f06", i, JobOptions.builder().runAt(runAt).build()).id());
		}
		assertThat(admin.counts("f06").delayed()).isEqualTo(12);
		RedisClock.awaitPast(this.redis, runAt);

		assertThat(admin.reapOnce("f06").promoted()).isEqualTo(12);
		List<String> order = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			order.add(queues.reserve("f06", 1, LEASE).get(0).id());
		}

		assertThat(order).containsExactlyElementsOf(ids);
	}

	// F05b
	@Test
	void idsNearTheTopOfTheSequenceAreExactIntegersOrRefusedAndNoJobIsOverwritten() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		String existing = queues.enqueue("f05", "existing").id();
		long start = 99_999_999_999_990L;
		this.redis.opsForValue().set(queues.keys("f05").key("seq"), Long.toString(start));

		Map<String, String> accepted = new LinkedHashMap<>();
		List<Throwable> refused = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			String payload = "job-" + i;
			Throwable failure = catchThrowable(() -> {
				EnqueueResult result = queues.enqueue("f05", payload);
				assertThat(result.duplicate()).isFalse();
				assertThat(result.id()).as("exact integer id").matches("[1-9][0-9]*");
				assertThat(accepted).as("ids so far").doesNotContainKey(result.id());
				accepted.put(result.id(), payload);
			});
			if (failure instanceof AssertionError assertion) {
				throw assertion;
			}
			if (failure != null) {
				// past the documented sequence limit the queue refuses
				assertThat(failure).isInstanceOfAny(QueueException.class, IllegalStateException.class);
				refused.add(failure);
			}
		}

		assertThat(accepted.size() + refused.size()).isEqualTo(20);
		long expected = start + 1;
		for (Map.Entry<String, String> job : accepted.entrySet()) {
			assertThat(new BigInteger(job.getKey())).isEqualTo(BigInteger.valueOf(expected++));
			assertThat(admin.job("f05", job.getKey()).orElseThrow().payloadAsString())
				.isEqualTo("\"" + job.getValue() + "\"");
		}
		assertThat(admin.job("f05", existing).orElseThrow().payloadAsString()).isEqualTo("\"existing\"");
		assertThat(admin.counts("f05").ready()).isEqualTo(1 + accepted.size());
	}

	// F05a
	@Test
	void enqueuePastTheSequenceLimitIsRefusedWithTheLimitBeforeAnyWrite() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue("f05", "existing", JobOptions.builder().uniqueKey("u").build());
		this.redis.opsForValue().set(queues.keys("f05").key("seq"), Long.toString(SEQUENCE_LIMIT));
		Map<String, String> before = snapshot();

		Throwable single = catchThrowable(() -> queues.enqueue("f05", "too late"));
		Throwable bulk = catchThrowable(
				() -> queues.enqueueAll("f05", List.of("a", "b"), JobOptions.builder().priority(5).build()));

		for (Throwable failure : java.util.Arrays.asList(single, bulk)) {
			assertThat(failure).isInstanceOfAny(QueueException.class, IllegalStateException.class);
			assertThat(messages(failure)).as("names the limit")
				.containsAnyOf("1000000000000", "999999999999", "10^12", "1e12", "1,000,000,000,000", "10¹²");
		}
		assertThat(snapshot()).as("every key as it was").isEqualTo(before);
	}

	// F05a: the last ids below the limit are exact
	@Test
	void enqueueJustBelowTheSequenceLimitGetsAnExactId() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		queues.enqueue("f05", "existing");
		this.redis.opsForValue().set(queues.keys("f05").key("seq"), Long.toString(SEQUENCE_LIMIT - 100));

		EnqueueResult result = queues.enqueue("f05", "x");

		assertThat(result.id()).isEqualTo(Long.toString(SEQUENCE_LIMIT - 99));
		assertThat(queues.reserve("f05", 2, LEASE)).extracting(ReservedJob::id)
			.containsExactly("1", Long.toString(SEQUENCE_LIMIT - 99));
	}

	// S4
	@Test
	void lostSequenceKeyNeverLetsAnEnqueueOverwriteAnExistingJob() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<String> originals = queues.enqueueAll("s4", List.of("a", "b", "c"), JobOptions.defaults())
			.stream()
			.map(EnqueueResult::id)
			.toList();
		// evicted, or deleted by hand
		this.redis.delete(queues.keys("s4").key("seq"));

		Map<String, String> accepted = new LinkedHashMap<>();
		for (String payload : List.of("d", "e", "f")) {
			Throwable failure = catchThrowable(() -> accepted.put(queues.enqueue("s4", payload).id(), payload));
			if (failure != null) {
				assertThat(failure).isInstanceOfAny(QueueException.class, IllegalStateException.class);
			}
		}

		assertThat(accepted.keySet()).doesNotContainAnyElementsOf(originals).doesNotHaveDuplicates();
		List<String> payloads = List.of("a", "b", "c");
		for (int i = 0; i < 3; i++) {
			assertThat(admin.job("s4", originals.get(i)).orElseThrow().payloadAsString())
				.isEqualTo("\"" + payloads.get(i) + "\"");
		}
		accepted.forEach((id, payload) -> assertThat(admin.job("s4", id).orElseThrow().payloadAsString())
			.isEqualTo("\"" + payload + "\""));
		assertThat(queues.reserve("s4", 10, LEASE)).hasSize(3 + accepted.size());
	}

	private Map<String, String> snapshot() {
		Map<String, String> dump = new TreeMap<>();
		for (String key : this.redis.keys("*")) {
			byte[] value = this.redis.dump(key);
			dump.put(key, (value != null) ? Base64.getEncoder().encodeToString(value) : "(gone)");
		}
		return dump;
	}

	private static String messages(Throwable failure) {
		StringBuilder text = new StringBuilder();
		for (Throwable t = failure; t != null; t = t.getCause()) {
			text.append(t.getMessage()).append(" | ");
		}
		return text.toString();
	}

}
