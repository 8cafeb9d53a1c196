package io.github.redisqueue.autoconfigure;

import io.github.redisqueue.core.QueueSettings;
import io.github.redisqueue.core.QueueTemplate;
import io.github.redisqueue.listener.ContainerOptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The property defaults are the core defaults, so a Boot application and a plain Spring one
 * behave alike.
 */
class QueuePropertiesTests {

	private final QueueProperties properties = new QueueProperties();

	@Test
	void engineDefaultsMatchTheCore() {
		QueueSettings core = QueueSettings.defaults();
		assertThat(this.properties.getKeyPrefix()).isEqualTo(core.keyPrefix());
		assertThat(this.properties.getMaxPayloadSize().toBytes()).isEqualTo(core.maxPayloadBytes());
		assertThat(this.properties.getMaxAttempts()).isEqualTo(core.defaultMaxAttempts());
		assertThat(this.properties.getRetention().getCompleted()).isEqualTo(core.completedRetention());
		assertThat(this.properties.getRetention().getDead()).isEqualTo(core.deadRetention());
		assertThat(this.properties.getReaper().getBatch()).isEqualTo(core.reapBatch());
		assertThat(this.properties.getWorkerId()).isNull();
		assertThat(this.properties.getEnqueueTimeout()).isEqualTo(QueueTemplate.DEFAULT_ENQUEUE_TIMEOUT);
	}

	@Test
	void listenerDefaultsMatchTheCore() {
		ContainerOptions core = ContainerOptions.defaults();
		ContainerOptions bound = QueueListenerContainerFactoryConfigurer.defaults(this.properties.getListener());
		assertThat(bound.concurrency()).isEqualTo(core.concurrency());
		assertThat(bound.lease()).isEqualTo(core.lease());
		assertThat(bound.prefetch()).isEqualTo(core.prefetch());
		assertThat(bound.pollInterval()).isEqualTo(core.pollInterval());
		assertThat(bound.shutdownTimeout()).isEqualTo(core.shutdownTimeout());
		assertThat(bound.maxAttempts()).isEqualTo(core.maxAttempts());
		assertThat(bound.acknowledgementMode()).isEqualTo(core.acknowledgementMode());
		assertThat(bound.autoStartup()).isEqualTo(core.autoStartup());
		for (int attempt = 0; attempt < 12; attempt++) {
			assertThat(nth(bound, attempt)).as("back-off %d", attempt).isEqualTo(nth(core, attempt));
		}
	}

	private static long nth(ContainerOptions options, int n) {
		var execution = options.backOff().start();
		long delay = execution.nextBackOff();
		for (int i = 0; i < n; i++) {
			delay = execution.nextBackOff();
		}
		return delay;
	}

}
