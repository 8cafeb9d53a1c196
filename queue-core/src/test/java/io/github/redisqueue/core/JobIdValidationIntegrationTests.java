package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.core.script.QueueScriptExecutor;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static io.github.redisqueue.core.script.ScriptArgs.encodeAscii;
import static io.github.redisqueue.core.script.ScriptArgs.encodeUtf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A job id that is not the canonical decimal the queue handed out ({@code "05"} for job 5) is
 * refused by every call that takes one, before anything is written: otherwise a script could
 * reach job 5's padded delayed entry while finding no record under {@code "05"}.
 */
class JobIdValidationIntegrationTests extends AbstractRedisIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final String QUEUE = "ids";

	private static final List<String> BAD = List.of("05", "", "1a", "+1", " 1", "5 ", "-5", "0x5", "５");

	@Test
	void theRuleAcceptsCanonicalDecimalsOnly() {
		assertThat(JobIds.validate("5")).isEqualTo("5");
		assertThat(JobIds.validate("1234567890")).isEqualTo("1234567890");
		assertThat(JobIds.isValid("0")).isTrue();
		for (String bad : BAD) {
			assertThat(JobIds.isValid(bad)).as("'%s'", bad).isFalse();
		}
		assertThat(JobIds.isValid(null)).isFalse();
		assertThat(JobIds.isValid("1".repeat(19))).isFalse();
		assertThatIllegalArgumentException().isThrownBy(() -> JobIds.validate("05"))
			.withMessageContaining("'05'")
			.withMessageContaining("leading zeros");
	}

	@Test
	void everyCallTakingAJobIdRefusesOneThatIsNotCanonicalAndWritesNothing() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll(QUEUE, List.of(1, 2, 3, 4), JobOptions.defaults());
		String delayed = queues.enqueue(QUEUE, 5, JobOptions.builder().delay(Duration.ofHours(1)).build()).id();
		assertThat(delayed).isEqualTo("5");
		ReservedJob held = queues.reserve(QUEUE, 1, LEASE).get(0);

		for (String bad : BAD) {
			JobRef ref = new JobRef(bad, held.ref().token());
			List<Executable> calls = List.of(() -> admin.promote(QUEUE, bad), () -> admin.deleteJob(QUEUE, bad),
					() -> admin.retryDead(QUEUE, bad), () -> admin.purgeDead(QUEUE, bad), () -> admin.job(QUEUE, bad),
					() -> queues.complete(QUEUE, ref), () -> queues.completeAll(QUEUE, List.of(held.ref(), ref)),
					() -> queues.retry(QUEUE, ref, "e", Duration.ZERO), () -> queues.deadLetter(QUEUE, ref, "e"),
					() -> queues.extend(QUEUE, ref, LEASE), () -> queues.extendAll(QUEUE, List.of(ref), LEASE),
					() -> queues.progress(QUEUE, ref, 50), () -> queues.release(QUEUE, ref),
					() -> queues.releaseAll(QUEUE, List.of(ref), true), () -> queues.result(QUEUE, bad, String.class),
					() -> queues.reserveBatch(QUEUE, 1, LEASE, "w", List.of(ref)));
			for (int i = 0; i < calls.size(); i++) {
				Executable call = calls.get(i);
				assertThatIllegalArgumentException().as("call %d with id '%s'", i, bad)
					.isThrownBy(call::execute)
					.withMessageContaining("Job id");
			}
		}

		// nothing moved: job 5 waits in the delayed set, the held job is still held
		assertThat(admin.job(QUEUE, delayed).orElseThrow().state()).isEqualTo(JobState.DELAYED);
		assertThat(admin.counts(QUEUE).delayed()).isEqualTo(1);
		assertThat(admin.counts(QUEUE).ready()).isEqualTo(3);
		assertThat(admin.job(QUEUE, held.id()).orElseThrow().state()).isEqualTo(JobState.ACTIVE);
		assertThat(admin.promote(QUEUE, delayed)).isTrue();
		assertThat(queues.reserve(QUEUE, 10, LEASE)).extracting(ReservedJob::id).containsExactly("2", "3", "4", "5");
		assertThat(queues.complete(QUEUE, held.ref())).isEqualTo(AckResult.OK);
	}

	@Test
	void theJobsScriptRefusesAPaddedIdBeforeItTouchesTheDelayedSet() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueueAll(QUEUE, List.of(1, 2, 3, 4), JobOptions.defaults());
		String delayed = queues.enqueue(QUEUE, 5, JobOptions.builder().delay(Duration.ofHours(1)).build()).id();
		QueueScriptExecutor executor = queues.executor();

		for (String op : List.of("promote", "delete")) {
			assertThatThrownBy(() -> executor.run(executor.scripts().jobs(), queues.keys(QUEUE),
					List.of(encodeAscii(op), encodeUtf8("05"))))
				.as(op)
				.hasStackTraceContaining("invalid job id");
		}
		assertThatThrownBy(() -> executor.run(executor.scripts().dead(), queues.keys(QUEUE),
				List.of(encodeAscii("purge"), encodeAscii("1"), encodeAscii("+inf"), encodeAscii("1"), encodeUtf8("05"))))
			.hasStackTraceContaining("invalid job id");

		assertThat(this.redis.opsForZSet().size(queues.keys(QUEUE).key("delayed"))).isEqualTo(1);
		assertThat(admin.job(QUEUE, delayed).orElseThrow().state()).isEqualTo(JobState.DELAYED);
		assertThat(admin.promote(QUEUE, delayed)).isTrue();
	}

}
