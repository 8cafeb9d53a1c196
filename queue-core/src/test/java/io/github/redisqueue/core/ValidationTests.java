package io.github.redisqueue.core;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Every value a user passes is checked, and a refusal names the value and the rule.
 */
class ValidationTests {

	@Test
	void priorityMustBeWithinMinusAndPlusOneThousand() {
		assertThat(JobOptions.builder().priority(-1000).build().getPriority()).isEqualTo(-1000);
		assertThat(JobOptions.builder().priority(1000).build().getPriority()).isEqualTo(1000);
		assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().priority(1001))
			.withMessageContaining("1001")
			.withMessageContaining("from -1000 to 1000");
		assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().priority(-1001))
			.withMessageContaining("-1001");
	}

	@Test
	void timesMustBeSensible() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().delay(Duration.ofSeconds(-1)))
			.withMessageContaining("PT-1S")
			.withMessageContaining("negative");
		assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().expireAfter(Duration.ZERO))
			.withMessageContaining("must be positive");
		assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().uniqueFor(Duration.ofMillis(-5)))
			.withMessageContaining("PT-0.005S is out of range");
		assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().runAt(Instant.EPOCH))
			.withMessageContaining("after the epoch");
	}

	@Test
	void attemptsUniqueKeysAndHeadersAreChecked() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().maxAttempts(0))
			.withMessageContaining("Max attempts 0");
		assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().maxAttempts(10_001))
			.withMessageContaining("10001");
		assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().uniqueKey(""))
			.withMessageContaining("from 1 to 512");
		assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().uniqueKey("k".repeat(513)))
			.withMessageContaining("from 1 to 512");
		assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().header("", "v"))
			.withMessageContaining("Header names");
	}

	@Test
	void queueNamesAreCheckedAgainstTheCharsetAndLength() {
		assertThat(QueueNames.validate("emails")).isEqualTo("emails");
		assertThat(QueueNames.validate("a")).isEqualTo("a");
		assertThat(QueueNames.validate("orders.v2_high-prio")).isEqualTo("orders.v2_high-prio");
		for (String bad : new String[] { "", "q".repeat(101), "a{b", "a:b", "a b", "-a", "a}" }) {
			assertThatIllegalArgumentException().as(bad)
				.isThrownBy(() -> QueueNames.validate(bad))
				.withMessageContaining("'" + bad + "'")
				.withMessageContaining("1 to 100 characters");
		}
	}

	@Test
	void settingsAreChecked() {
		QueueSettings defaults = QueueSettings.defaults();
		assertThat(defaults.maxPayloadBytes()).isEqualTo(1024 * 1024);
		assertThat(defaults.workerId()).contains(":");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.toBuilder().maxPayloadBytes(0).build())
			.withMessageContaining("Max payload size 0");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.toBuilder().keyPrefix("a:b").build())
			.withMessageContaining("Key prefix 'a:b'");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.toBuilder().deadRetention(Duration.ofSeconds(-1)).build())
			.withMessageContaining("Dead-job retention");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.toBuilder().defaultMaxAttempts(0).build())
			.withMessageContaining("Default max attempts 0");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.toBuilder().groupConcurrency("q", 1001).build())
			.withMessageContaining("Group concurrency of queue 'q' 1001 is out of range: it must be from 1 to 1000");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.toBuilder().defaultGroupConcurrency(0).build())
			.withMessageContaining("Default group concurrency 0");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.toBuilder().batchRetention(Duration.ZERO).build())
			.withMessageContaining("Batch retention PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.toBuilder().maxResultBytes(0).build())
			.withMessageContaining("Max result size 0");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> defaults.toBuilder().resultRetention(Duration.ofDays(3651)).build())
			.withMessageContaining("Result retention PT87624H is out of range");
	}

	@Test
	void groupsAreCheckedAndCannotBeDelayed() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().group(""))
			.withMessageContaining("Group key '' must have from 1 to 512 characters");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> JobOptions.builder().group("customer-1").delay(Duration.ofSeconds(1)).build())
			.withMessageContaining("Job of group 'customer-1' cannot be delayed");
		assertThat(JobOptions.builder().group("customer-1").build().toBuilder().build().getGroup()).isEqualTo("customer-1");
	}

}
