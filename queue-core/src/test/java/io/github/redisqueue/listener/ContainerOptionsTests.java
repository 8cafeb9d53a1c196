package io.github.redisqueue.listener;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.util.backoff.BackOffExecution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Options the engine cannot honour are refused when they are built, with the value and the
 * allowed range, instead of making every reserve fail later.
 */
class ContainerOptionsTests {

	@Test
	void concurrencyPlusPrefetchAboveTheReserveLimitIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ContainerOptions.builder().concurrency(1000).prefetch(9500).build())
			.withMessageContaining("1000")
			.withMessageContaining("9500")
			.withMessageContaining("10500")
			.withMessageContaining("10000");
	}

	@Test
	void defaultPrefetchCountsAgainstTheReserveLimit() {
		// concurrency 1000 with an unset prefetch: it adapts up to 256 jobs, but never below the
		// concurrency, so at most 2000 in one call: fine
		assertThat(ContainerOptions.builder().concurrency(1000).build().maxPrefetch()).isEqualTo(1000);
		assertThat(ContainerOptions.builder().concurrency(8).build().maxPrefetch()).isEqualTo(128);
		assertThatNoException().isThrownBy(() -> ContainerOptions.builder().concurrency(1000).prefetch(9000).build());
	}

	@Test
	void leaseLongerThanTheEngineAcceptsIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ContainerOptions.builder().lease(Duration.ofDays(8)).build())
			.withMessageContaining("PT192H")
			.withMessageContaining("PT168H");
		assertThatNoException().isThrownBy(() -> ContainerOptions.builder().lease(Duration.ofDays(7)).build());
	}

	@Test
	void leaseShorterThanOneHundredMillisecondsIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ContainerOptions.builder().lease(Duration.ofMillis(99)).build())
			.withMessageContaining("PT0.099S")
			.withMessageContaining("PT0.1S");
	}

	@Test
	void maxAttemptsOutsideOneToTenThousandIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> ContainerOptions.builder().maxAttempts(0).build())
			.withMessageContaining("0")
			.withMessageContaining("from 1 to 10000");
		assertThatIllegalArgumentException().isThrownBy(() -> ContainerOptions.builder().maxAttempts(10_001).build())
			.withMessageContaining("10001")
			.withMessageContaining("from 1 to 10000");
		assertThatNoException().isThrownBy(() -> ContainerOptions.builder().maxAttempts(10_000).build());
		assertThatNoException().isThrownBy(() -> ContainerOptions.builder().maxAttempts(null).build());
	}

	@Test
	void builderStartsFromTheDefaultsAndToBuilderFromTheOptions() {
		assertThat(ContainerOptions.builder().build()).isEqualTo(ContainerOptions.defaults())
			.hasSameHashCodeAs(ContainerOptions.defaults());
		ContainerOptions options = ContainerOptions.builder()
			.concurrency(3)
			.prefetch(0)
			.maxAttempts(5)
			.notRetryable(List.of(IllegalStateException.class))
			.acknowledgementMode(AcknowledgementMode.MANUAL)
			.autoStartup(false)
			.build();
		assertThat(options.toBuilder().build()).isEqualTo(options).isNotEqualTo(ContainerOptions.defaults());
		assertThat(options.toBuilder().concurrency(4).build().concurrency()).isEqualTo(4);
		assertThat(options.concurrency()).isEqualTo(3);
		assertThat(options.toString()).contains("concurrency=3", "MANUAL");
	}

	@Test
	void eachBackOffValueChangesAloneAndTheBackOffIsBuiltFromThem() {
		ContainerOptions base = ContainerOptions.builder()
			.backOff(Duration.ofMillis(100), 3.0, Duration.ofMillis(500))
			.build();
		ContainerOptions options = base.toBuilder().backOffInitial(Duration.ofMillis(200)).build();
		assertThat(options.backOffMultiplier()).isEqualTo(3.0);
		assertThat(options.backOffMax()).isEqualTo(Duration.ofMillis(500));
		BackOffExecution execution = options.backOff().start();
		assertThat(List.of(execution.nextBackOff(), execution.nextBackOff(), execution.nextBackOff()))
			.containsExactly(200L, 500L, 500L);
		assertThat(options.backOff()).isNotSameAs(options.backOff());
	}

	@Test
	void backOffMultiplierBelowOneIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ContainerOptions.builder().backOffMultiplier(0.5).build())
			.withMessageContaining("0.5");
	}

}
