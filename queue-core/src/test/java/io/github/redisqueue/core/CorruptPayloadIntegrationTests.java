package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad input loses nothing: a payload that cannot be read as the consumer's type is
 * dead-lettered with the reason, and the other jobs are handed out.
 */
class CorruptPayloadIntegrationTests extends AbstractRedisIntegrationTests {

	record Email(String to, String subject) {
	}

	@Test
	void corruptPayloadStoredByHandIsDeadLetteredAndOtherJobsGoOn() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		List<EnqueueResult> jobs = queues.enqueueAll("mail",
				List.of(new Email("a@x", "1"), new Email("b@x", "2"), new Email("c@x", "3")), JobOptions.defaults());
		String bad = jobs.get(1).id();
		new JobRecords(this.redis, queues, "mail").payload(bad, "{not json");

		List<Job<Email>> handedOut = queues.reserve("mail", 10, Duration.ofMinutes(1), Email.class);

		assertThat(handedOut).extracting((job) -> job.payload().to()).containsExactly("a@x", "c@x");
		assertThat(admin.deadLetters("mail", 0, 10)).singleElement().satisfies((dead) -> {
			assertThat(dead.id()).isEqualTo(bad);
			assertThat(dead.error()).contains("Cannot read payload as");
		});
		handedOut.forEach((job) -> assertThat(queues.complete("mail", job.ref())).isEqualTo(AckResult.OK));
	}

	@Test
	void payloadOfTheWrongShapeIsDeadLettered() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("mail", List.of(1, 2));
		queues.enqueue("mail", new Email("ok@x", "fine"));

		List<Job<Email>> handedOut = queues.reserve("mail", 10, Duration.ofMinutes(1), Email.class);

		assertThat(handedOut).singleElement().satisfies((job) -> assertThat(job.payload().to()).isEqualTo("ok@x"));
		assertThat(admin.counts("mail").dead()).isEqualTo(1);
	}

}
