package io.github.redisqueue.support.micrometer;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags of the listener observation: {@code queue.listener} with low-cardinality keys
 * {@code queue} and {@code listener.id} (and {@code error}, added by the metrics handler), and the
 * job id as a high-cardinality key (for traces, never for meters). Implement it and set it on
 * the container factory to change them.
 *
 * @since 0.1.0
 */
public interface QueueListenerObservationConvention extends ObservationConvention<QueueListenerContext> {

	/** The default convention. */
	QueueListenerObservationConvention DEFAULT = new QueueListenerObservationConvention() {
	};

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof QueueListenerContext;
	}

	@Override
	default String getName() {
		return "queue.listener";
	}

	@Override
	default String getContextualName(QueueListenerContext context) {
		return context.getQueue() + " process";
	}

	@Override
	default KeyValues getLowCardinalityKeyValues(QueueListenerContext context) {
		return KeyValues.of(QueueObservation.ListenerLowCardinalityKeys.QUEUE.withValue(context.getQueue()),
				QueueObservation.ListenerLowCardinalityKeys.LISTENER_ID.withValue(context.getListenerId()));
	}

	@Override
	default KeyValues getHighCardinalityKeyValues(QueueListenerContext context) {
		return KeyValues.of(QueueObservation.ListenerHighCardinalityKeys.JOB_ID.withValue(context.getJobId()));
	}

}
