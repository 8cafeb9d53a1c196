package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.github.redisqueue.core.metrics.MicrometerJobEvents;
import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import io.github.redisqueue.test.RedisClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue's rate limit in the reserve script, through the pull API: a call hands out no more
 * than the window allows, says when the next hand-out is due by the Redis clock, is counted in
 * {@code queue.rate.limited}, and hands out again once that time came; the window is kept in
 * the queue's stats hash, fitted when the limit changes and started afresh when it cannot be
 * read; a template without a limit neither honours nor writes it.
 */
class RateLimitIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final String WORKER = "w";

	private QueueTemplate limited(String queue, String limit) {
		return new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().rateLimit(queue, RateLimit.parse(limit)).build());
	}

	private static Instant handedOutAt(ReservedJob job) {
		return job.leaseUntil().minus(LEASE);
	}

	@Test
	void aCallHandsOutWhatTheWindowAllowsAndTellsWhenTheNextIsDue() {
		QueueTemplate queues = limited("pull", "5/2s");
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		queues.setJobEvents(new MicrometerJobEvents(registry));
		for (int i = 0; i < 12; i++) {
			queues.enqueue("pull", i);
		}
		List<Instant> handOuts = new ArrayList<>();

		Reservation first = queues.reserveBatch("pull", 8, LEASE, WORKER);
		assertThat(first.jobs()).hasSize(5);
		first.jobs().forEach((job) -> handOuts.add(handedOutAt(job)));
		assertThat(first.rateLimitedUntil()).isEqualTo(first.serverTime().plusSeconds(2));
		assertThat(handedOutAt(first.jobs().get(0))).isEqualTo(first.serverTime());

		Reservation refused = queues.reserveBatch("pull", 8, LEASE, WORKER);
		assertThat(refused.jobs()).isEmpty();
		assertThat(refused.rateLimitedUntil()).isEqualTo(first.rateLimitedUntil());
		assertThat(registry.get("queue.rate.limited").tag("queue", "pull").counter().count()).isEqualTo(2);

		RedisClock.awaitPast(this.redis, first.rateLimitedUntil().minusMillis(1));
		Reservation second = queues.reserveBatch("pull", 8, LEASE, WORKER);
		assertThat(second.jobs()).hasSize(5);
		second.jobs().forEach((job) -> handOuts.add(handedOutAt(job)));
		assertThat(second.rateLimitedUntil()).isEqualTo(second.serverTime().plusSeconds(2));

		RedisClock.awaitPast(this.redis, second.rateLimitedUntil().minusMillis(1));
		Reservation last = queues.reserveBatch("pull", 8, LEASE, WORKER);
		assertThat(last.jobs()).hasSize(2);
		last.jobs().forEach((job) -> handOuts.add(handedOutAt(job)));
		assertThat(last.rateLimitedUntil()).as("nothing more is ready: not cut short").isNull();
		assertThat(registry.get("queue.rate.limited").tag("queue", "pull").counter().count()).isEqualTo(3);

		// the sliding window: any 6 consecutive hand-outs span 2 s or more
		Collections.sort(handOuts);
		for (int i = 0; i + 5 < handOuts.size(); i++) {
			assertThat(Duration.between(handOuts.get(i), handOuts.get(i + 5))).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
		}
	}

	@Test
	void aCallThatAsksForNoMoreThanAllowedOrFindsTooFewJobsIsNotCutShort() {
		QueueTemplate queues = limited("few", "5/1m");
		for (int i = 0; i < 3; i++) {
			queues.enqueue("few", i);
		}
		Reservation reservation = queues.reserveBatch("few", 10, LEASE, WORKER);
		assertThat(reservation.jobs()).hasSize(3);
		assertThat(reservation.rateLimitedUntil()).isNull();
		queues.enqueue("few", 3);
		queues.enqueue("few", 4);
		queues.enqueue("few", 5);
		Reservation exact = queues.reserveBatch("few", 2, LEASE, WORKER);
		assertThat(exact.jobs()).hasSize(2);
		assertThat(exact.rateLimitedUntil()).as("asked for no more than allowed").isNull();
		Reservation full = queues.reserveBatch("few", 1, LEASE, WORKER);
		assertThat(full.jobs()).isEmpty();
		assertThat(full.rateLimitedUntil()).isEqualTo(reservation.serverTime().plusSeconds(60));
	}

	@Test
	void withoutALimitNothingIsHeldBackAndTheWindowIsNeitherReadNorWritten() {
		QueueTemplate free = new QueueTemplate(this.connectionFactory);
		for (int i = 0; i < 8; i++) {
			free.enqueue("free", i);
		}
		Reservation reservation = free.reserveBatch("free", 8, LEASE, WORKER);
		assertThat(reservation.jobs()).hasSize(8);
		assertThat(reservation.rateLimitedUntil()).isNull();
		assertThat(this.redis.opsForHash().hasKey("{rq:free}:stats", "~rate")).isFalse();

		// a consumer without the limit ignores a window other consumers keep
		QueueTemplate limited = limited("free", "2/1m");
		for (int i = 0; i < 8; i++) {
			free.enqueue("free", i);
		}
		assertThat(limited.reserveBatch("free", 8, LEASE, WORKER).jobs()).hasSize(2);
		assertThat(free.reserveBatch("free", 8, LEASE, WORKER).jobs()).hasSize(6);
		assertThat((String) this.redis.opsForHash().get("{rq:free}:stats", "~rate")).hasSize(2 * 13);
		// the counts of the queue leave the window out
		assertThat(new QueueAdmin(free).counts("free").totals()).doesNotContainKey("~rate");
	}

	@Test
	void aWindowKeptForAnotherLimitKeepsItsLatestHandOuts() {
		QueueTemplate five = limited("change", "5/1m");
		for (int i = 0; i < 20; i++) {
			five.enqueue("change", i);
		}
		assertThat(five.reserveBatch("change", 10, LEASE, WORKER).jobs()).hasSize(5);
		// a lower limit: the 5 recent hand-outs fill it
		assertThat(limited("change", "3/1m").reserveBatch("change", 10, LEASE, WORKER).jobs()).isEmpty();
		// a higher one: 8 - 5 more
		assertThat(limited("change", "8/1m").reserveBatch("change", 10, LEASE, WORKER).jobs()).hasSize(3);
		assertThat(five.reserveBatch("change", 10, LEASE, WORKER).jobs()).isEmpty();
	}

	@Test
	void aWindowThatCannotBeReadStartsAfresh() {
		QueueTemplate queues = limited("damaged", "4/1m");
		for (int i = 0; i < 10; i++) {
			queues.enqueue("damaged", i);
		}
		this.redis.opsForHash().put("{rq:damaged}:stats", "~rate", "not a window");
		Reservation reservation = queues.reserveBatch("damaged", 10, LEASE, WORKER);
		assertThat(reservation.jobs()).hasSize(4);
		assertThat(reservation.rateLimitedUntil()).isEqualTo(reservation.serverTime().plusSeconds(60));
		assertThat((String) this.redis.opsForHash().get("{rq:damaged}:stats", "~rate")).hasSize(4 * 13)
			.matches("[0-9]+");
	}

	// S5: the counts read the public counters only, not the window of up to 130 KB
	@Test
	void countsReadTheCountersButNotTheWindowOfTheStatsHash() {
		QueueTemplate queues = limited("s5", "10000/1s");
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("s5", "x");
		String stats = queues.keys("s5").key("stats");
		this.redis.opsForHash().put(stats, "~rate", "1".repeat(130_000));
		this.redis.execute((org.springframework.data.redis.core.RedisCallback<Object>) (connection) -> {
			connection.serverCommands().resetConfigStats();
			return null;
		});

		QueueCounts counts = admin.counts("s5");

		java.util.Properties commands = this.redis.execute(
				(org.springframework.data.redis.core.RedisCallback<java.util.Properties>) (connection) -> connection
					.serverCommands()
					.info("commandstats"));
		assertThat(commands.stringPropertyNames()).noneMatch((name) -> name.contains("hgetall"));
		assertThat(counts.total("enqueued")).isEqualTo(1);
		assertThat(counts.totals().keySet()).noneMatch((name) -> name.startsWith("~"));
	}

}
