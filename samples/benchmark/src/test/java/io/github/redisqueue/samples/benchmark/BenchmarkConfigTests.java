package io.github.redisqueue.samples.benchmark;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The benchmark's options as parsed: the warm-up runs (counted runs come after them).
 */
class BenchmarkConfigTests {

	@Test
	void oneWarmupRunUnlessToldOtherwise() {
		assertThat(BenchmarkConfig.parse().warmupRuns()).isEqualTo(1);
		assertThat(BenchmarkConfig.parse("--warmup-runs=0").warmupRuns()).isZero();
		assertThat(BenchmarkConfig.parse("--warmup-runs=2", "--runs=5").warmupRuns()).isEqualTo(2);
	}

	@Test
	void negativeWarmupRunsAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> BenchmarkConfig.parse("--warmup-runs=-1"))
			.withMessageContaining("warmup runs 0 or more");
	}

}
