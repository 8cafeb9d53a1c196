package io.github.redisqueue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.script.DefaultRedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The schedule script against a real Redis: a tick fires once whatever the number of callers, and
 * the missed-tick policies and the grace decide what a late tick or a missed span enqueues.
 */
class QueueSchedulesIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration GRACE = Duration.ofSeconds(10);

	private static final byte[] PAYLOAD = "\"digest\"".getBytes(StandardCharsets.UTF_8);

	// every id new_id would try next is taken (records put there), so that it fails
	private static final DefaultRedisScript<Long> TAKE_NEXT_IDS = new DefaultRedisScript<>(QueueScripts.withPrelude("""
			local seq = (tonumber(redis.call('GET', K_SEQ)) or 0) + 1
			redis.call('HSET', K_JOBS, int(seq_id(seq)), 'x')
			local step = 1
			for _ = 1, 62 do
			  seq = seq + step
			  redis.call('HSET', K_JOBS, int(seq_id(seq)), 'x')
			  step = step * 2
			end
			return 1
			"""), Long.class);

	// S3: the tick is recorded only with its job
	@Test
	void aTickWhoseJobCannotBeGivenAnIdIsNotRecorded() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueSchedules schedules = new QueueSchedules(queues);
		Instant tick = schedules.peek("digest", "daily").serverTime().minusMillis(200);
		List<String> keys = queues.keys("digest").scriptKeys().stream()
			.map((key) -> new String(key, StandardCharsets.UTF_8))
			.toList();
		this.redis.execute(TAKE_NEXT_IDS, keys, "", "");

		assertThatThrownBy(() -> schedules.fire("digest", "daily", tick, tick.minusSeconds(1), MissedTicks.FIRE_ONCE,
				GRACE, PAYLOAD)).hasStackTraceContaining("no free job id");

		assertThat(schedules.peek("digest", "daily").lastTick()).as("the tick is not taken as handled").isNull();
		assertThat(queues.keys("digest").key("ready:plain")).satisfies(
				(plain) -> assertThat(this.redis.opsForList().size(plain)).isZero());
	}

	@Test
	void aTickFiresOnceAndCarriesItsTickAndScheduleHeaders() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueSchedules schedules = new QueueSchedules(queues);
		Instant tick = schedules.peek("digest", "daily").serverTime().minusMillis(200);
		assertThat(schedules.peek("digest", "daily").lastTick()).isNull();

		ScheduleFiring first = schedules.fire("digest", "daily", tick, tick.minusSeconds(1), MissedTicks.FIRE_ONCE, GRACE,
				PAYLOAD);
		ScheduleFiring again = schedules.fire("digest", "daily", tick, tick.minusSeconds(1), MissedTicks.FIRE_ONCE, GRACE,
				PAYLOAD);

		assertThat(first.outcome()).isEqualTo(ScheduleFiring.Outcome.FIRED);
		assertThat(first.jobs()).containsOnlyKeys(tick);
		assertThat(again.outcome()).isEqualTo(ScheduleFiring.Outcome.HANDLED);
		assertThat(again.jobs()).isEmpty();
		assertThat(schedules.peek("digest", "daily").lastTick()).isEqualTo(tick);
		List<ReservedJob> jobs = queues.reserve("digest", 10, Duration.ofMinutes(1));
		assertThat(jobs).hasSize(1);
		assertThat(jobs.get(0).id()).isEqualTo(first.jobs().get(tick));
		assertThat(jobs.get(0).payload()).isEqualTo(PAYLOAD);
		assertThat(jobs.get(0).headers()).containsEntry(QueueSchedules.SCHEDULE_HEADER, "daily")
			.containsEntry(QueueSchedules.TICK_HEADER, tick.toString());
		assertThat(this.redis.opsForHash().get(schedules.stateKey("digest", "daily"), "daily"))
			.isEqualTo(Long.toString(tick.toEpochMilli()));
	}

	@Test
	void manyCallersOfManyTemplatesFiringTheSameTickEnqueueOneJob() throws Exception {
		List<QueueSchedules> callers = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			callers.add(new QueueSchedules(new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
					QueueSettings.builder().workerId("instance-" + i).build())));
		}
		Instant now = callers.get(0).peek("race", "every-second").serverTime();
		ExecutorService pool = Executors.newFixedThreadPool(12);
		try {
			for (int round = 0; round < 5; round++) {
				Instant tick = now.minusSeconds(5 - round);
				List<Callable<ScheduleFiring>> calls = new ArrayList<>();
				for (int i = 0; i < 12; i++) {
					QueueSchedules caller = callers.get(i % 3);
					calls.add(() -> caller.fire("race", "every-second", tick, tick.minusSeconds(1), MissedTicks.FIRE_ONCE,
							GRACE, PAYLOAD));
				}
				int fired = 0;
				for (Future<ScheduleFiring> result : pool.invokeAll(calls)) {
					fired += result.get().jobs().size();
				}
				assertThat(fired).as("jobs for tick %s", tick).isEqualTo(1);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(new QueueAdmin(new QueueTemplate(this.connectionFactory)).counts("race").ready()).isEqualTo(5);
	}

	@Test
	void aNewScheduleDoesNotFireALateTickButRecordsIt() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueSchedules schedules = new QueueSchedules(queues);
		Instant late = schedules.peek("digest", "new").serverTime().minusSeconds(60);

		ScheduleFiring firing = schedules.fire("digest", "new", late, late.minusSeconds(60), MissedTicks.FIRE_ONCE, GRACE,
				PAYLOAD);

		assertThat(firing.outcome()).isEqualTo(ScheduleFiring.Outcome.LATE);
		assertThat(firing.jobs()).isEmpty();
		assertThat(schedules.peek("digest", "new").lastTick()).isEqualTo(late);
		assertThat(queues.reserve("digest", 10, Duration.ofMinutes(1))).isEmpty();
	}

	@Test
	void fireOnceFiresALateTickOnceWhenTheScheduleHasHistory() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueSchedules schedules = new QueueSchedules(queues);
		Instant now = schedules.peek("digest", "hourly").serverTime();
		Instant last = now.minusSeconds(4 * 3600);
		schedules.fire("digest", "hourly", last, null, MissedTicks.FIRE_ONCE, Duration.ofDays(1), PAYLOAD);
		queues.reserve("digest", 10, Duration.ofMinutes(1));
		Instant latest = now.minusSeconds(1800);

		ScheduleFiring firing = schedules.fire("digest", "hourly", latest, latest.minusSeconds(3600),
				MissedTicks.FIRE_ONCE, GRACE, PAYLOAD);

		// the ticks 3, 2 and 1.5 hours ago were missed: one job, for the latest of them
		assertThat(firing.outcome()).isEqualTo(ScheduleFiring.Outcome.FIRED);
		assertThat(firing.jobs()).containsOnlyKeys(latest);
	}

	@Test
	void skipFiresNoLateTick() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueSchedules schedules = new QueueSchedules(queues);
		Instant now = schedules.peek("digest", "hourly").serverTime();
		schedules.fire("digest", "hourly", now.minusSeconds(4 * 3600), null, MissedTicks.SKIP, Duration.ofDays(1),
				PAYLOAD);
		queues.reserve("digest", 10, Duration.ofMinutes(1));
		Instant latest = now.minusSeconds(1800);

		ScheduleFiring firing = schedules.fire("digest", "hourly", latest, latest.minusSeconds(3600), MissedTicks.SKIP,
				GRACE, PAYLOAD);

		assertThat(firing.outcome()).isEqualTo(ScheduleFiring.Outcome.LATE);
		assertThat(firing.jobs()).isEmpty();
		assertThat(schedules.peek("digest", "hourly").lastTick()).isEqualTo(latest);
		assertThat(queues.reserve("digest", 10, Duration.ofMinutes(1))).isEmpty();
	}

	@Test
	void anOnTimeTickAfterAMissedSpanFiresWithOneJobForTheSpanUnderFireOnceAndAloneUnderSkip() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueSchedules schedules = new QueueSchedules(queues);
		Instant now = schedules.peek("digest", "once").serverTime();
		Instant last = now.minusSeconds(10);
		Instant tick = now.minusMillis(100);
		for (String name : List.of("once", "skip")) {
			MissedTicks policy = name.equals("once") ? MissedTicks.FIRE_ONCE : MissedTicks.SKIP;
			schedules.fire("digest", name, last, null, policy, Duration.ofDays(1), PAYLOAD);
		}
		queues.reserve("digest", 10, Duration.ofMinutes(1));

		ScheduleFiring once = schedules.fire("digest", "once", tick, tick.minusSeconds(1), MissedTicks.FIRE_ONCE, GRACE,
				PAYLOAD);
		ScheduleFiring skip = schedules.fire("digest", "skip", tick, tick.minusSeconds(1), MissedTicks.SKIP, GRACE,
				PAYLOAD);

		assertThat(once.jobs()).containsOnlyKeys(tick.minusSeconds(1), tick);
		assertThat(skip.jobs()).containsOnlyKeys(tick);
		assertThat(queues.reserve("digest", 10, Duration.ofMinutes(1))).hasSize(3)
			.extracting((job) -> job.headers().get(QueueSchedules.TICK_HEADER))
			.containsExactly(tick.minusSeconds(1).toString(), tick.toString(), tick.toString());
	}

	@Test
	void onAPartitionedQueueTheStateAndTheJobsLiveInThePartitionOfTheScheduleName() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().partitions("orders", 3).build());
		QueueSchedules schedules = new QueueSchedules(queues);
		Instant tick = schedules.peek("orders", "nightly").serverTime().minusMillis(10);

		ScheduleFiring firing = schedules.fire("orders", "nightly", tick, null, MissedTicks.FIRE_ONCE, GRACE, PAYLOAD);

		String partition = queues.partitionNames("orders").get(QueueTemplate.partitionOfKey("nightly", 3));
		assertThat(schedules.stateKey("orders", "nightly")).contains(partition);
		assertThat(this.redis.opsForHash().get(schedules.stateKey("orders", "nightly"), "nightly"))
			.isEqualTo(Long.toString(tick.toEpochMilli()));
		List<ReservedJob> jobs = queues.reserve("orders", 10, Duration.ofMinutes(1));
		assertThat(jobs).singleElement().satisfies((job) -> assertThat(job.id()).isEqualTo(firing.jobs().get(tick)));
		assertThat(schedules.fire("orders", "nightly", tick, null, MissedTicks.FIRE_ONCE, GRACE, PAYLOAD).outcome())
			.isEqualTo(ScheduleFiring.Outcome.HANDLED);
	}

	@Test
	void aDamagedLastTickCountsAsNoneAndIsReplaced() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueSchedules schedules = new QueueSchedules(queues);
		this.redis.opsForHash().put(schedules.stateKey("digest", "damaged"), "damaged", "not a number");
		Instant tick = schedules.peek("digest", "damaged").serverTime().minusMillis(10);

		assertThat(schedules.fire("digest", "damaged", tick, null, MissedTicks.FIRE_ONCE, GRACE, PAYLOAD).jobs())
			.containsOnlyKeys(tick);
		assertThat(schedules.peek("digest", "damaged").lastTick()).isEqualTo(tick);
	}

	@Test
	void aPassedTickCountsAsHandledWithoutAJob() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueSchedules schedules = new QueueSchedules(queues);
		Instant tick = schedules.peek("digest", "maybe").serverTime().minusMillis(10);

		schedules.pass("digest", "maybe", tick);

		assertThat(schedules.peek("digest", "maybe").lastTick()).isEqualTo(tick);
		assertThat(schedules.fire("digest", "maybe", tick, null, MissedTicks.FIRE_ONCE, GRACE, PAYLOAD).outcome())
			.isEqualTo(ScheduleFiring.Outcome.HANDLED);
		assertThat(queues.reserve("digest", 10, Duration.ofMinutes(1))).isEmpty();
	}

	@Test
	void aTickInTheFutureOfTheServerClockIsRefusedWithoutWriting() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueSchedules schedules = new QueueSchedules(queues);
		Instant future = schedules.peek("digest", "skewed").serverTime().plusSeconds(60);

		assertThatThrownBy(() -> schedules.fire("digest", "skewed", future, null, MissedTicks.FIRE_ONCE, GRACE, PAYLOAD))
			.rootCause()
			.hasMessageContaining("invalid schedule arguments");
		assertThat(schedules.peek("digest", "skewed").lastTick()).isNull();
		assertThat(queues.reserve("digest", 10, Duration.ofMinutes(1))).isEmpty();
	}

}
