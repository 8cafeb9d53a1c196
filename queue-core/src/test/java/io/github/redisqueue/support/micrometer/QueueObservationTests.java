package io.github.redisqueue.support.micrometer;

import java.util.Arrays;
import java.util.Map;

import io.micrometer.common.KeyValue;
import io.micrometer.common.docs.KeyName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The documented observations match what the default conventions produce, so the
 * documentation cannot drift from the tags.
 */
class QueueObservationTests {

	@Test
	void listenerConventionUsesTheDocumentedKeys() {
		QueueListenerContext context = new QueueListenerContext("mail", "7", Map.of("traceparent", "00-abc"), "mailer");
		QueueListenerObservationConvention convention = QueueListenerObservationConvention.DEFAULT;

		assertThat(convention.getName()).isEqualTo("queue.listener");
		assertThat(keys(convention.getLowCardinalityKeyValues(context)))
			.containsExactlyInAnyOrder(names(QueueObservation.LISTENER.getLowCardinalityKeyNames()));
		assertThat(keys(convention.getHighCardinalityKeyValues(context)))
			.containsExactlyInAnyOrder(names(QueueObservation.LISTENER.getHighCardinalityKeyNames()));
		assertThat(convention.getLowCardinalityKeyValues(context)).contains(KeyValue.of("queue", "mail"),
				KeyValue.of("listener.id", "mailer"));
		assertThat(convention.getHighCardinalityKeyValues(context)).contains(KeyValue.of("job.id", "7"));
		assertThat(context.getGetter().get(context.getCarrier(), "traceparent")).as("headers carry the trace")
			.isEqualTo("00-abc");
		assertThat(QueueObservation.LISTENER.getDefaultConvention()).isEqualTo(QueueListenerObservationConvention.class);
	}

	@Test
	void enqueueConventionUsesTheDocumentedKeys() {
		QueueEnqueueContext context = new QueueEnqueueContext("mail", 3, Map.of());
		QueueEnqueueObservationConvention convention = QueueEnqueueObservationConvention.DEFAULT;

		assertThat(convention.getName()).isEqualTo("queue.enqueue");
		assertThat(keys(convention.getLowCardinalityKeyValues(context)))
			.containsExactlyInAnyOrder(names(QueueObservation.ENQUEUE.getLowCardinalityKeyNames()));
		assertThat(keys(convention.getHighCardinalityKeyValues(context)))
			.containsExactlyInAnyOrder(names(QueueObservation.ENQUEUE.getHighCardinalityKeyNames()));
		assertThat(convention.getHighCardinalityKeyValues(context)).contains(KeyValue.of("job.count", "3"));
		assertThat(QueueObservation.ENQUEUE.getDefaultConvention()).isEqualTo(QueueEnqueueObservationConvention.class);
	}

	private static String[] keys(Iterable<KeyValue> values) {
		java.util.List<String> keys = new java.util.ArrayList<>();
		values.forEach((value) -> keys.add(value.getKey()));
		return keys.toArray(String[]::new);
	}

	private static String[] names(KeyName[] names) {
		return Arrays.stream(names).map(KeyName::asString).toArray(String[]::new);
	}

}
