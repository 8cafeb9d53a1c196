package io.github.redisqueue.listener;

import java.time.Duration;

import org.junit.jupiter.api.Test;

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
			.isThrownBy(() -> ContainerOptions.defaults().withConcurrency(1000).withPrefetch(9500))
			.withMessageContaining("1000")
			.withMessageContaining("9500")
			.withMessageContaining("10500")
			.withMessageContaining("10000");
	}

	@Test
	void defaultPrefetchCountsAgainstTheReserveLimit() {
		// concurrency 1000 with the default prefetch (as many as the concurrency) is 2000: fine
		assertThat(ContainerOptions.defaults().withConcurrency(1000).effectivePrefetch()).isEqualTo(1000);
		assertThatNoException().isThrownBy(() -> ContainerOptions.defaults().withConcurrency(1000).withPrefetch(9000));
	}

	@Test
	void leaseLongerThanTheEngineAcceptsIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ContainerOptions.defaults().withLease(Duration.ofDays(8)))
			.withMessageContaining("PT192H")
			.withMessageContaining("PT168H");
		assertThatNoException().isThrownBy(() -> ContainerOptions.defaults().withLease(Duration.ofDays(7)));
	}

	@Test
	void leaseShorterThanOneHundredMillisecondsIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ContainerOptions.defaults().withLease(Duration.ofMillis(99)))
			.withMessageContaining("PT0.099S")
			.withMessageContaining("PT0.1S");
	}

	@Test
	void maxAttemptsOutsideOneToTenThousandIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> ContainerOptions.defaults().withMaxAttempts(0))
			.withMessageContaining("0")
			.withMessageContaining("from 1 to 10000");
		assertThatIllegalArgumentException().isThrownBy(() -> ContainerOptions.defaults().withMaxAttempts(10_001))
			.withMessageContaining("10001")
			.withMessageContaining("from 1 to 10000");
		assertThatNoException().isThrownBy(() -> ContainerOptions.defaults().withMaxAttempts(10_000));
		assertThatNoException().isThrownBy(() -> ContainerOptions.defaults().withMaxAttempts(null));
	}

}
