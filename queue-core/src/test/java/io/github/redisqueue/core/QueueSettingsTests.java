package io.github.redisqueue.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Settings are built from the defaults and changed through a builder; the defaults are the
 * documented constants.
 */
class QueueSettingsTests {

	@Test
	void defaultsAreTheConstants() {
		QueueSettings defaults = QueueSettings.defaults();
		assertThat(defaults.keyPrefix()).isEqualTo(QueueSettings.DEFAULT_KEY_PREFIX);
		assertThat(defaults.maxPayloadBytes()).isEqualTo(QueueSettings.DEFAULT_MAX_PAYLOAD_BYTES);
		assertThat(defaults.defaultMaxAttempts()).isEqualTo(QueueSettings.DEFAULT_MAX_ATTEMPTS);
		assertThat(defaults.completedRetention()).isEqualTo(QueueSettings.DEFAULT_COMPLETED_RETENTION);
		assertThat(defaults.deadRetention()).isEqualTo(QueueSettings.DEFAULT_DEAD_RETENTION);
		assertThat(defaults.reclaimBatch()).isEqualTo(QueueSettings.DEFAULT_RECLAIM_BATCH);
		assertThat(defaults.reapBatch()).isEqualTo(QueueSettings.DEFAULT_REAP_BATCH);
		assertThat(defaults.enqueueChunk()).isEqualTo(QueueSettings.DEFAULT_ENQUEUE_CHUNK);
		assertThat(defaults.resultRetention()).isEqualTo(QueueSettings.DEFAULT_RESULT_RETENTION);
		assertThat(defaults.maxResultBytes()).isEqualTo(QueueSettings.DEFAULT_MAX_RESULT_BYTES);
		assertThat(defaults.batchRetention()).isEqualTo(QueueSettings.DEFAULT_BATCH_RETENTION);
		assertThat(defaults.groupConcurrency("any")).isEqualTo(1);
	}

	@Test
	void groupConcurrencyIsPerQueueWithADefault() {
		QueueSettings settings = QueueSettings.builder().defaultGroupConcurrency(3).groupConcurrency("tenants", 5).build();
		assertThat(settings.groupConcurrency("tenants")).isEqualTo(5);
		assertThat(settings.groupConcurrency("other")).isEqualTo(3);
		assertThat(settings.toBuilder().build()).isEqualTo(settings).hasSameHashCodeAs(settings);
		assertThat(settings.toBuilder().groupConcurrency("tenants", 4).build()).isNotEqualTo(settings);
	}

	@Test
	void toBuilderKeepsEverythingItDoesNotChange() {
		QueueSettings settings = QueueSettings.builder()
			.keyPrefix("jobs")
			.workerId("orders-0")
			.deadRetention(Duration.ZERO)
			.build();
		assertThat(settings.toBuilder().build()).isEqualTo(settings).hasSameHashCodeAs(settings);
		QueueSettings changed = settings.toBuilder().reapBatch(10).build();
		assertThat(changed).isNotEqualTo(settings);
		assertThat(changed.keyPrefix()).isEqualTo("jobs");
		assertThat(changed.workerId()).isEqualTo("orders-0");
		assertThat(changed.reapBatch()).isEqualTo(10);
		assertThat(settings.reapBatch()).isEqualTo(QueueSettings.DEFAULT_REAP_BATCH);
		assertThat(changed.toString()).contains("keyPrefix=jobs", "reapBatch=10");
	}

	@Test
	void unsetWorkerIdIsTheHostAndProcess() {
		assertThat(QueueSettings.builder().build().workerId()).endsWith(":" + ProcessHandle.current().pid());
		assertThat(QueueSettings.builder().workerId(null).build().workerId())
			.endsWith(":" + ProcessHandle.current().pid());
	}

}
