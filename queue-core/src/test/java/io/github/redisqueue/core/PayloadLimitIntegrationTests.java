package io.github.redisqueue.core;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.support.converter.JacksonJobSerializer;
import io.github.redisqueue.test.AbstractRedisIntegrationTests;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Bad input is refused at enqueue with a message that says what and why, and nothing is written;
 * large payloads within the limit round-trip intact.
 */
class PayloadLimitIntegrationTests extends AbstractRedisIntegrationTests {

	@Test
	void oversizedPayloadIsRefusedWithSizeAndLimitAndNothingIsWritten() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory, new JacksonJobSerializer(),
				QueueSettings.builder().maxPayloadBytes(1024).build());
		QueueAdmin admin = new QueueAdmin(queues);

		assertThatExceptionOfType(PayloadTooLargeException.class)
			.isThrownBy(() -> queues.enqueue("big", "x".repeat(2048)))
			.withMessageContaining("'big'")
			.withMessageContaining("2050 bytes")
			.withMessageContaining("1024 bytes")
			.satisfies((ex) -> assertThat(ex.getLimit()).isEqualTo(1024));
		assertThatExceptionOfType(PayloadTooLargeException.class)
			.isThrownBy(() -> queues.enqueueAll("big", List.of("ok", "x".repeat(2048), "ok"), JobOptions.defaults()));

		assertThat(admin.counts("big").pending()).isZero();
		assertThat(admin.queues()).doesNotContain("big");
	}

	@Test
	void payloadOverSixtyFourKilobytesRoundTripsIntact() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		String large = "0123456789abcdef".repeat(200 * 1024 / 16);
		queues.enqueue("big", large);

		Job<String> job = queues.reserve("big", 1, Duration.ofMinutes(1), String.class).get(0);
		assertThat(job.payload()).isEqualTo(large);
	}

	@Test
	void invalidQueueNameIsRefusedWithTheRule() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		assertThatIllegalArgumentException().isThrownBy(() -> queues.enqueue("bad{name}", "x"))
			.withMessageContaining("'bad{name}'")
			.withMessageContaining("letters, digits");
		assertThat(admin.queues()).isEmpty();
	}

	@Test
	void enqueuedQueuesAreListedInTheRegistry() {
		QueueTemplate queues = new QueueTemplate(this.connectionFactory);
		QueueAdmin admin = new QueueAdmin(queues);
		queues.enqueue("b", "x");
		queues.enqueue("a", "x");
		assertThat(admin.queues()).containsExactly("a", "b");
	}

}
