package io.github.redisqueue.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The default worker id is {@code host:pid}; without a distinctive host name it must not fall
 * back to a value two processes share (two containers with pid 1 would take each other's leases).
 */
class DefaultWorkerIdTests {

	@Test
	void resolvedHostNameAndPid() {
		assertThat(QueueSettings.defaultWorkerId("worker-7", "ignored", 42)).isEqualTo("worker-7:42");
	}

	@Test
	void unresolvedHostFallsBackToTheHostnameVariable() {
		assertThat(QueueSettings.defaultWorkerId(null, "pod-3", 1)).isEqualTo("pod-3:1");
		assertThat(QueueSettings.defaultWorkerId("localhost", "pod-3", 1)).isEqualTo("pod-3:1");
		assertThat(QueueSettings.defaultWorkerId("localhost.localdomain", "pod-3", 1)).isEqualTo("pod-3:1");
	}

	@Test
	void noDistinctiveHostGivesAUniqueIdentityNotASharedOne() {
		String first = QueueSettings.defaultWorkerId(null, null, 1);
		String second = QueueSettings.defaultWorkerId("localhost", " ", 1);

		assertThat(first).matches("unknown-[0-9a-f]+:1").isNotEqualTo(second);
		assertThat(second).matches("unknown-[0-9a-f]+:1");
		assertThat(first).isNotEqualTo("localhost:1");
	}

	@Test
	void resultIsAValidWorkerId() {
		String id = QueueSettings.defaultWorkerId("odd#host" + "x".repeat(300), null, 123456);
		assertThat(id).doesNotContain("#").hasSizeLessThanOrEqualTo(200).endsWith(":123456");
		assertThat(QueueSettings.builder().workerId(id).build().workerId()).isEqualTo(id);
		assertThat(QueueSettings.defaults().workerId()).endsWith(":" + ProcessHandle.current().pid());
	}

}
