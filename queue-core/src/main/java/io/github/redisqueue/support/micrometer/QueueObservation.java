package io.github.redisqueue.support.micrometer;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of redis-queue, their names and keys: {@code queue.listener} for each
 * listener invocation and {@code queue.enqueue} for each enqueue call.
 *
 * @since 0.1.0
 */
public enum QueueObservation implements ObservationDocumentation {

	/** One listener invocation, a consumer span with tracing. */
	LISTENER(QueueListenerObservationConvention.class, ListenerLowCardinalityKeys.values(),
			ListenerHighCardinalityKeys.values()),

	/** One enqueue call (one job or a batch), a producer span with tracing. */
	ENQUEUE(QueueEnqueueObservationConvention.class, EnqueueLowCardinalityKeys.values(),
			EnqueueHighCardinalityKeys.values());

	private final Class<? extends ObservationConvention<? extends Observation.Context>> defaultConvention;

	private final KeyName[] lowCardinalityKeyNames;

	private final KeyName[] highCardinalityKeyNames;

	QueueObservation(Class<? extends ObservationConvention<? extends Observation.Context>> defaultConvention,
			KeyName[] lowCardinalityKeyNames, KeyName[] highCardinalityKeyNames) {
		this.defaultConvention = defaultConvention;
		this.lowCardinalityKeyNames = lowCardinalityKeyNames;
		this.highCardinalityKeyNames = highCardinalityKeyNames;
	}

	@Override
	public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
		return this.defaultConvention;
	}

	@Override
	public KeyName[] getLowCardinalityKeyNames() {
		return this.lowCardinalityKeyNames.clone();
	}

	@Override
	public KeyName[] getHighCardinalityKeyNames() {
		return this.highCardinalityKeyNames.clone();
	}

	/** Low-cardinality keys of {@link #LISTENER}. */
	public enum ListenerLowCardinalityKeys implements KeyName {

		/** The queue name. */
		QUEUE("queue"),

		/** The listener (container) id. */
		LISTENER_ID("listener.id");

		private final String key;

		ListenerLowCardinalityKeys(String key) {
			this.key = key;
		}

		@Override
		public String asString() {
			return this.key;
		}

	}

	/** High-cardinality keys of {@link #LISTENER}: for spans, never for meters. */
	public enum ListenerHighCardinalityKeys implements KeyName {

		/** The job id. */
		JOB_ID("job.id");

		private final String key;

		ListenerHighCardinalityKeys(String key) {
			this.key = key;
		}

		@Override
		public String asString() {
			return this.key;
		}

	}

	/** Low-cardinality keys of {@link #ENQUEUE}. */
	public enum EnqueueLowCardinalityKeys implements KeyName {

		/** The queue name. */
		QUEUE("queue");

		private final String key;

		EnqueueLowCardinalityKeys(String key) {
			this.key = key;
		}

		@Override
		public String asString() {
			return this.key;
		}

	}

	/** High-cardinality keys of {@link #ENQUEUE}. */
	public enum EnqueueHighCardinalityKeys implements KeyName {

		/** How many jobs the call enqueued. */
		JOB_COUNT("job.count");

		private final String key;

		EnqueueHighCardinalityKeys(String key) {
			this.key = key;
		}

		@Override
		public String asString() {
			return this.key;
		}

	}

}
