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
	LISTENER {
		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return QueueListenerObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return ListenerLowCardinalityKeys.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return ListenerHighCardinalityKeys.values();
		}
	},

	/** One enqueue call (one job or a batch), a producer span with tracing. */
	ENQUEUE {
		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return QueueEnqueueObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return EnqueueLowCardinalityKeys.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return EnqueueHighCardinalityKeys.values();
		}
	};

	/** Low-cardinality keys of {@link #LISTENER}. */
	public enum ListenerLowCardinalityKeys implements KeyName {

		/** The queue name. */
		QUEUE {
			@Override
			public String asString() {
				return "queue";
			}
		},

		/** The listener (container) id. */
		LISTENER_ID {
			@Override
			public String asString() {
				return "listener.id";
			}
		}

	}

	/** High-cardinality keys of {@link #LISTENER}: for spans, never for meters. */
	public enum ListenerHighCardinalityKeys implements KeyName {

		/** The job id. */
		JOB_ID {
			@Override
			public String asString() {
				return "job.id";
			}
		}

	}

	/** Low-cardinality keys of {@link #ENQUEUE}. */
	public enum EnqueueLowCardinalityKeys implements KeyName {

		/** The queue name. */
		QUEUE {
			@Override
			public String asString() {
				return "queue";
			}
		}

	}

	/** High-cardinality keys of {@link #ENQUEUE}. */
	public enum EnqueueHighCardinalityKeys implements KeyName {

		/** How many jobs the call enqueued. */
		JOB_COUNT {
			@Override
			public String asString() {
				return "job.count";
			}
		}

	}

}
