package io.github.redisqueue.config;

import java.time.Duration;
import java.util.List;

import io.github.redisqueue.listener.AcknowledgementMode;
import io.github.redisqueue.listener.ContainerOptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An endpoint changes only the settings its annotation names: everything else, each back-off
 * value included, keeps what the factory gives for the queue.
 */
class MethodQueueListenerEndpointTests {

	private final ContainerOptions queueOptions = ContainerOptions.builder()
		.concurrency(4)
		.backOff(Duration.ofMillis(100), 3.0, Duration.ofSeconds(10))
		.acknowledgementMode(AcknowledgementMode.ALWAYS)
		.build();

	@Test
	void endpointWithoutSettingsKeepsTheQueueOptions() {
		assertThat(endpoint().customize(this.queueOptions)).isEqualTo(this.queueOptions);
	}

	@Test
	void partialBackOffKeepsTheQueuesOtherBackOffValues() {
		MethodQueueListenerEndpoint endpoint = endpoint();
		endpoint.setBackOff(Duration.ofMillis(250), null, null);
		endpoint.setConcurrency(2);
		ContainerOptions options = endpoint.customize(this.queueOptions);
		assertThat(options).isEqualTo(this.queueOptions.toBuilder()
			.backOffInitial(Duration.ofMillis(250))
			.concurrency(2)
			.build());
		assertThat(options.backOffMultiplier()).isEqualTo(3.0);
		assertThat(options.backOffMax()).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void everySettingTheEndpointNamesWins() {
		MethodQueueListenerEndpoint endpoint = endpoint();
		endpoint.setConcurrency(8);
		endpoint.setPrefetch(0);
		endpoint.setLease(Duration.ofMinutes(2));
		endpoint.setMaxAttempts(5);
		endpoint.setBackOff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(1));
		endpoint.setNotRetryable(List.of(IllegalArgumentException.class));
		endpoint.setAckMode(AcknowledgementMode.MANUAL);
		endpoint.setAutoStartup(false);
		assertThat(endpoint.customize(this.queueOptions)).isEqualTo(ContainerOptions.builder()
			.concurrency(8)
			.prefetch(0)
			.lease(Duration.ofMinutes(2))
			.maxAttempts(5)
			.backOff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(1))
			.notRetryable(List.of(IllegalArgumentException.class))
			.acknowledgementMode(AcknowledgementMode.MANUAL)
			.autoStartup(false)
			.build());
	}

	private static MethodQueueListenerEndpoint endpoint() {
		try {
			return new MethodQueueListenerEndpoint("id", "emails", new Object(), Object.class.getMethod("toString"));
		}
		catch (NoSuchMethodException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
